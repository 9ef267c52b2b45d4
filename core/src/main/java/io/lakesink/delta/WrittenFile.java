package io.lakesink.delta;

/**
 * A data file a pending commit wrote: its path as the log spells it, and its rows (-1 when its
 * statistics do not say). The rows handed to one write fill its files in order.
 */
public record WrittenFile(String path, long rows) {}

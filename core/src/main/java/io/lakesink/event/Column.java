package io.lakesink.event;

/** A named, typed column of a source row. */
public record Column(String name, ColumnType type) {}

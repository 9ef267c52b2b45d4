package io.lakesink.delivery;

import java.time.Instant;

/**
 * A table's delivery as {@code /status} shows it.
 *
 * @param lastVersion the Delta version of the last commit this worker made, or -1
 * @param lastCommitAt when that commit was made, or null
 * @param rowsDelivered rows committed by this worker since it started
 */
public record TableStatus(
    String table,
    String topic,
    String mode,
    String state,
    String reason,
    Instant since,
    long lastVersion,
    Instant lastCommitAt,
    long rowsDelivered,
    int bufferedEvents) {}

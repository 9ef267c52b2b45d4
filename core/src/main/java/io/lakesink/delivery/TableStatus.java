package io.lakesink.delivery;

import java.time.Instant;
import java.util.List;

/**
 * A table's delivery as {@code /status} shows it.
 *
 * @param lastVersion the Delta version of the last commit this worker made, or -1
 * @param lastCommitAt when that commit was made, or null
 * @param rowsDelivered rows committed by this worker since it started
 * @param warnings problems that do not stop delivery but should be fixed (a primary key that
 *     looks wrong), each saying what to do
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
    int bufferedEvents,
    List<String> warnings) {}

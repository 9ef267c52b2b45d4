package io.lakesink.connect;

import io.lakesink.delivery.TableStatus;
import java.time.Instant;
import java.util.List;

/**
 * One running lakesink task as the REST extension shows it: what the standalone worker's
 * {@code /status} shows, per Connect task.
 *
 * @param connector the connector the task belongs to
 * @param at when the task last published this (end of its last open, put or close)
 * @param partitions the partitions the task owns, as {@code topic-partition}
 * @param faults credentials or permissions refused (storage, registry): its tables wait on them
 * @param tables each table the task has delivered to, with its state, reason and since
 */
record TaskStatus(String connector, Instant at, List<String> partitions, List<String> faults, List<TableStatus> tables) {}

package io.lakesink.delta;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The source offsets one commit covers, per transaction identifier (one per source partition):
 * where the batch starts and the next offset to read after it.
 *
 * <p>{@code from} is what makes the commit fenced: it may land only while the table's log stores
 * no offset past {@code from} for any of its identifiers. Every writer reads a partition
 * contiguously from what the log stores, so two writers of one partition (a worker that lost it
 * and the new owner, two deployments, a retry of a commit that did land) can never both commit
 * the same offsets, whatever order their commits reach the log in.
 *
 * @param next identifier → next offset to read; stored as the identifier's version
 * @param from identifier → first offset the batch covers (absent: no fence for it)
 */
public record CommitOffsets(Map<String, Long> next, Map<String, Long> from) {
  /** No offsets: for writes that are not a delivery (benchmarks, tests). */
  public static final CommitOffsets NONE = new CommitOffsets(Map.of(), Map.of());

  public CommitOffsets {
    next = Map.copyOf(next);
    from = Map.copyOf(from);
  }

  /** Identifiers in a stable order. */
  Map<String, Long> ordered() {
    return new LinkedHashMap<>(new java.util.TreeMap<>(next));
  }
}

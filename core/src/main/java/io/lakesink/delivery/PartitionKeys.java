package io.lakesink.delivery;

import io.lakesink.error.SourcePosition;

/**
 * The map key of the partition a position was read from, the last one kept: events arrive in
 * runs of one partition, and a new key for every event was about 1.5 % of the worker's
 * allocation. Not thread-safe: one per owner (a buffer, a delivery).
 */
final class PartitionKeys {
  private SourcePartition last;

  SourcePartition of(SourcePosition p) {
    SourcePartition key = last;
    if (key == null || key.partition() != p.partition() || !key.topic().equals(p.topic())) {
      key = new SourcePartition(p.topic(), p.partition());
      last = key;
    }
    return key;
  }
}

package io.lakesink.delivery;

/** A partition of a source topic; the unit whose offsets are stored in a Delta table. */
public record SourcePartition(String topic, int partition) {

  /**
   * The Delta transaction application id under which this partition's next offset is stored.
   * Keyed by topic and partition, not by table, so a subscription that changes mode continues
   * from the same offsets in its new table.
   */
  public String applicationId() {
    return "lakesink/" + topic + "/" + partition;
  }

  @Override
  public String toString() {
    return topic + "-" + partition;
  }
}

package io.lakesink.error;

/** Where a record came from: enough for an operator to find it again. */
public record SourcePosition(String topic, int partition, long offset) {
  @Override
  public String toString() {
    return "topic " + topic + ", partition " + partition + ", offset " + offset;
  }
}

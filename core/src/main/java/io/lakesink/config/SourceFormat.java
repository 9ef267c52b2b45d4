package io.lakesink.config;

/** How the records of a topic are encoded. */
public enum SourceFormat {
  /** Per record: Confluent-framed Avro when it starts with the magic byte 0, JSON otherwise. */
  AUTO,
  JSON,
  AVRO
}

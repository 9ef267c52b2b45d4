package io.lakesink.config;

/** How the records of a topic are encoded. */
public enum SourceFormat {
  JSON,
  AVRO
}

package io.lakesink.kafka.decode;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;

/** Turns one Kafka record into a change event. */
public interface RecordDecoder {

  /**
   * @return the change, or null when the record carries none (a tombstone, a logical decoding message)
   * @throws DecodeException when the record cannot be understood
   */
  ChangeEvent decode(SourcePosition position, byte[] key, byte[] value) throws DecodeException;
}

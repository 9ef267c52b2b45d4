package io.lakesink.kafka.decode;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import java.nio.ByteBuffer;

/** Turns one Kafka record into a change event. */
public interface RecordDecoder {

  /**
   * @return the change, or null when the record carries none (a tombstone, a logical decoding message)
   * @throws DecodeException when the record cannot be understood
   */
  ChangeEvent decode(SourcePosition position, byte[] key, byte[] value) throws DecodeException;

  /**
   * The same, for a value that is a view of the consumer's fetch buffer (what Kafka's
   * {@code ByteBufferDeserializer} hands over, without copying the record's bytes). A decoder
   * that can read the bytes where they are overrides this; the default copies them. Neither may
   * keep the buffer past the call: an event holding on to it would hold the whole fetch.
   */
  default ChangeEvent decode(SourcePosition position, byte[] key, ByteBuffer value) throws DecodeException {
    return decode(position, key, RecordBytes.copy(value));
  }
}

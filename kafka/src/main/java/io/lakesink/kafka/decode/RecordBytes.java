package io.lakesink.kafka.decode;

import java.nio.ByteBuffer;

/** A record value handed over as a {@link ByteBuffer}: its bytes where they are, or a copy. */
final class RecordBytes {
  private RecordBytes() {}

  /** The bytes between the buffer's position and limit as an array of their own; null for null. */
  static byte[] copy(ByteBuffer value) {
    if (value == null) {
      return null;
    }
    byte[] bytes = new byte[value.remaining()];
    value.duplicate().get(bytes); // the caller's position stays where it was
    return bytes;
  }

  /**
   * The record as a {@link Document} over the buffer's own array when it has one (the fetch
   * buffer the consumer read from the network), else over a copy.
   */
  static Document document(ByteBuffer value) {
    if (value.hasArray()) {
      int start = value.arrayOffset() + value.position();
      return new Document(value.array(), start, start + value.remaining());
    }
    return Document.of(copy(value));
  }
}

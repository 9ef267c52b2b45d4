package io.lakesink.kafka.decode;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.avro.AvroDebeziumDecoder;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * {@code format: auto}: Confluent-framed Avro when a value starts with the magic byte 0 (JSON
 * never does), JSON otherwise. The Avro decoder is only built when a record needs it.
 */
public final class DetectingDecoder implements RecordDecoder {
  private final DebeziumJsonDecoder json = new DebeziumJsonDecoder();
  private final Supplier<AvroDebeziumDecoder> avroFactory;
  private AvroDebeziumDecoder avro;

  /** @param avroFactory builds the Avro decoder, or returns null when no registry is configured */
  public DetectingDecoder(Supplier<AvroDebeziumDecoder> avroFactory) {
    this.avroFactory = avroFactory;
  }

  @Override
  public ChangeEvent decode(SourcePosition position, byte[] key, byte[] value) throws DecodeException {
    if (value == null || !AvroDebeziumDecoder.looksLikeConfluentAvro(value)) {
      return json.decode(position, key, value);
    }
    if (avro == null) {
      avro = avroFactory.get();
      if (avro == null) {
        throw new DecodeException(
            "the record is Confluent-framed Avro but no schema registry is configured: set schema_registry.url");
      }
    }
    return avro.decode(position, key, value);
  }

  /** JSON is read where the consumer fetched it; Avro from a copy (its decoder reads arrays). */
  @Override
  public ChangeEvent decode(SourcePosition position, byte[] key, ByteBuffer value) throws DecodeException {
    if (value == null || !looksLikeConfluentAvro(value)) {
      return json.decode(position, key, value);
    }
    return decode(position, key, RecordBytes.copy(value));
  }

  /** {@link AvroDebeziumDecoder#looksLikeConfluentAvro} of the bytes from the buffer's position. */
  private static boolean looksLikeConfluentAvro(ByteBuffer value) {
    return value.remaining() >= AvroDebeziumDecoder.HEADER_LENGTH && value.get(value.position()) == AvroDebeziumDecoder.MAGIC_BYTE;
  }
}

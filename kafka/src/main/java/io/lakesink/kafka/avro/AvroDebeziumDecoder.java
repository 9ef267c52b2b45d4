package io.lakesink.kafka.avro;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.NonTableTopic;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.RecordDecoder;
import java.io.IOException;
import io.lakesink.kafka.decode.LruCache;
import io.lakesink.kafka.decode.MongoDocuments;
import io.lakesink.kafka.decode.OpCodes;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Debezium change events in Avro, in the Confluent wire format (byte 0, a 4-byte big-endian
 * schema id, the Avro binary body), with writer schemas from a Confluent-compatible registry.
 *
 * <p>Behaves like {@link io.lakesink.kafka.decode.DebeziumJsonDecoder}: the envelope
 * ({@code before}/{@code after}/{@code source}/{@code op}/{@code ts_ms}) or a flattened record
 * ({@code __op}, {@code __ts_ms}, {@code __source_ts_ms}, string {@code __deleted}); tombstones
 * and message events carry no change, a truncate is an event without a row; a delete without a before image uses the key;
 * the change time is {@code source.ts_ms}, else the envelope's {@code ts_ms}. Every column is
 * typed from the writer schema by {@link io.lakesink.types.TypeMapping}. The key's field names are
 * the default primary key; a key that is not Confluent Avro (no magic byte) gives none. A key that
 * is, but whose schema cannot be had, fails like a value would: retryable while the registry is
 * unreachable, undecodable when the registry refuses it. It is never taken for "no key": that
 * would silently turn a keyed table append-only.
 *
 * <p>Not thread-safe (it caches readers and row schemas per schema id, the least recently used
 * beyond {@link LruCache#DEFAULT_CAPACITY}); the registry client it uses may be shared.
 */
public final class AvroDebeziumDecoder implements RecordDecoder {
  /** The Confluent wire format's first byte. */
  public static final byte MAGIC_BYTE = 0;
  /** Magic byte plus schema id. */
  public static final int HEADER_LENGTH = 5;

  /** Fields ExtractNewRecordState adds to flattened records; they are metadata, not columns. */
  static final Set<String> FLATTENED_METADATA = Set.of("__op", "__ts_ms", "__source_ts_ms", "__deleted");

  private final SchemaRegistryClient registry;
  private final Map<Integer, ValueShape> valueShapes = new LruCache<>(LruCache.DEFAULT_CAPACITY);
  private final Map<Integer, KeyShape> keyShapes = new LruCache<>(LruCache.DEFAULT_CAPACITY);
  /** One RowSchema instance per distinct column list, whichever schema id produced it. */
  private final Map<RowSchema, RowSchema> rowSchemas = new LruCache<>(LruCache.DEFAULT_CAPACITY);
  private final MongoDocuments mongo = new MongoDocuments();

  public AvroDebeziumDecoder(SchemaRegistryClient registry) {
    this.registry = registry;
  }

  /** A decoder with a registry client of its own; prefer sharing one client per registry. */
  public AvroDebeziumDecoder(SchemaRegistrySettings settings) {
    this(new SchemaRegistryClient(settings));
  }

  /** Whether a record value or key looks like the Confluent wire format: byte 0, then a schema id. */
  public static boolean looksLikeConfluentAvro(byte[] value) {
    return value != null && value.length >= HEADER_LENGTH && value[0] == MAGIC_BYTE;
  }

  /** The schema id of a Confluent wire-format record (check {@link #looksLikeConfluentAvro} first). */
  static int schemaId(byte[] bytes) {
    return ((bytes[1] & 0xff) << 24) | ((bytes[2] & 0xff) << 16) | ((bytes[3] & 0xff) << 8) | (bytes[4] & 0xff);
  }

  /**
   * @throws DecodeException when the record is not Confluent Avro, its schema id is unknown, or
   *     its body does not match its schema
   * @throws io.lakesink.error.RetryableException when the schema registry cannot be reached: the
   *     same record may decode once it is back
   */
  @Override
  public ChangeEvent decode(SourcePosition position, byte[] key, byte[] value) throws DecodeException {
    if (value == null) {
      return null; // tombstone: the delete itself was the preceding 'd' event
    }
    checkWireFormat(value, "value");
    int id = schemaId(value);
    ValueShape shape = valueShapes.get(id);
    if (shape == null) {
      shape = new ValueShape(id, registry.schemaById(id));
      valueShapes.put(id, shape);
    }
    Object datum = shape.read(value);
    if (!(datum instanceof GenericRecord record)) {
      throw new DecodeException(
          "the value's writer schema (id " + id + ") is " + shape.schema.getType().getName() + ", not a record");
    }
    return shape.envelope
        ? envelope(position, shape, record, key, value.length)
        : flattened(position, shape, record, key, value.length);
  }

  private ChangeEvent envelope(
      SourcePosition position, ValueShape shape, GenericRecord record, byte[] key, int size) throws DecodeException {
    Object codeValue = record.get(shape.op);
    String code = codeValue == null ? null : codeValue.toString();
    if ("m".equals(code)) {
      return null; // a logical decoding message (PostgreSQL pg_logical_emit_message) changes no row
    }
    Operation op = Operation.fromCode(code);
    if (op == null) {
      throw new DecodeException("the Debezium field 'op' holds " + OpCodes.describe(code) + " (expected c, u, d, r or t)");
    }
    int imagePos = op == Operation.DELETE ? shape.before : shape.after;
    Object image = imagePos < 0 ? null : record.get(imagePos);
    Long ts = null;
    boolean snapshotEnd = false;
    String connector = null;
    if (shape.source >= 0 && record.get(shape.source) instanceof GenericRecord source) {
      Schema.Field c = source.getSchema().getField("connector");
      connector = c == null || source.get(c.pos()) == null ? null : source.get(c.pos()).toString();
      Schema.Field f = source.getSchema().getField("ts_ms");
      ts = f == null ? null : longOrNull(source.get(f.pos()));
      Schema.Field snapshot = source.getSchema().getField("snapshot");
      snapshotEnd = snapshot != null && source.get(snapshot.pos()) != null && "last".equals(source.get(snapshot.pos()).toString());
    }
    if (ts == null && shape.tsMs >= 0) {
      ts = longOrNull(record.get(shape.tsMs));
    }
    if (op == Operation.TRUNCATE) {
      return ChangeEvent.truncate(position, ts, size); // no before, no after: the whole table
    }
    if (MongoDocuments.CONNECTOR.equals(connector)) {
      Object after = shape.after < 0 ? null : record.get(shape.after);
      Object before = shape.before < 0 ? null : record.get(shape.before);
      if (!(after instanceof GenericRecord) && !(before instanceof GenericRecord)) {
        Schema.Field described = record.getSchema().getField("updateDescription");
        return mongo.event(position, op, ts, text(after), text(before), described != null && record.get(described.pos()) != null,
            () -> mongoKeyId(key), size, snapshotEnd);
      }
    }
    KeyShape keyShape = keyShape(key);
    if (image == null) {
      if (op != Operation.DELETE) {
        throw new DecodeException("a '" + code + "' event without an 'after' image");
      }
      // A delete without a before image (REPLICA IDENTITY DEFAULT, …): the key identifies it.
      GenericRecord keyRecord = keyShape == null ? null : keyShape.readRecord(key);
      if (keyRecord == null) {
        throw new DecodeException("a delete event with neither a 'before' image nor an Avro record key");
      }
      image = keyRecord;
    }
    if (!(image instanceof GenericRecord row)) {
      throw new DecodeException("the event's row image is " + AvroJson.text(image) + ", not a record");
    }
    AvroRowSchema rowSchema = shape.image(row.getSchema());
    return new ChangeEvent(position, op, ts, rowSchema.rowSchema, rowSchema.values(row), keyFields(keyShape), size, snapshotEnd);
  }

  private ChangeEvent flattened(
      SourcePosition position, ValueShape shape, GenericRecord record, byte[] key, int size) throws DecodeException {
    Object codeValue = shape.flatOp < 0 ? null : record.get(shape.flatOp);
    String code = codeValue == null ? null : codeValue.toString();
    Operation op = Operation.fromCode(code);
    if (code != null && op == null) {
      throw new DecodeException("the field '__op' holds " + OpCodes.describe(code) + " (expected c, u, d, r or t)");
    }
    Object deletedValue = shape.flatDeleted < 0 ? null : record.get(shape.flatDeleted);
    if (op == null && deletedValue != null && "true".equalsIgnoreCase(deletedValue.toString())) {
      op = Operation.DELETE;
    }
    Long ts = shape.flatSourceTsMs < 0 ? null : longOrNull(record.get(shape.flatSourceTsMs));
    if (ts == null && shape.flatTsMs >= 0) {
      ts = longOrNull(record.get(shape.flatTsMs));
    }
    if (op == Operation.TRUNCATE) {
      return ChangeEvent.truncate(position, ts, size); // whatever columns it carries are not a row
    }
    if (op == null) {
      // Without __op it is a flattened row, unless it is a record of a topic with no table changes.
      Schema schema = record.getSchema();
      Optional<NonTableTopic> other = NonTableTopic.byShape(
          schema.getProp("connect.name") != null ? schema.getProp("connect.name") : schema.getFullName(),
          name -> schema.getField(name) != null);
      if (other.isPresent()) {
        throw DecodeException.nonTableRecord(position.topic(), other.get());
      }
    }
    AvroRowSchema rowSchema = shape.flattenedRow();
    return new ChangeEvent(position, op, ts, rowSchema.rowSchema, rowSchema.values(record), keyFields(keyShape(key)), size);
  }

  private static String text(Object documentText) {
    return documentText == null ? null : documentText.toString(); // MongoDB's documents: io.debezium.data.Json strings
  }

  /** The {@code id} field of a MongoDB record key (the document's _id as extended-JSON text). */
  private String mongoKeyId(byte[] key) throws DecodeException {
    KeyShape keyShape = keyShape(key);
    GenericRecord keyRecord = keyShape == null ? null : keyShape.readRecord(key);
    Schema.Field id = keyRecord == null ? null : keyRecord.getSchema().getField("id");
    if (id == null || keyRecord.get(id.pos()) == null) {
      throw new DecodeException("a MongoDB delete without a 'before' document and without an Avro record key with an 'id'");
    }
    return keyRecord.get(id.pos()).toString();
  }

  private RowSchema intern(RowSchema schema) {
    RowSchema existing = rowSchemas.putIfAbsent(schema, schema);
    return existing == null ? schema : existing;
  }

  private static List<String> keyFields(KeyShape key) {
    return key == null ? List.of() : key.fields;
  }

  /**
   * The key's shape, or null when there is no key or it is not Confluent Avro (like a JSON key that
   * does not parse, it only loses its use as the default primary key). A key schema the registry
   * cannot give fails the record, and nothing is remembered about it: the next record asks again.
   *
   * @throws DecodeException when the registry refuses the key's schema id (unknown, not Avro, …)
   * @throws io.lakesink.error.RetryableException when the registry cannot be reached
   */
  private KeyShape keyShape(byte[] key) throws DecodeException {
    if (!looksLikeConfluentAvro(key)) {
      return null;
    }
    int id = schemaId(key);
    KeyShape shape = keyShapes.get(id);
    if (shape == null) {
      Schema schema;
      try {
        schema = registry.schemaById(id);
      } catch (DecodeException e) {
        throw new DecodeException("the record key's writer schema: " + e.getMessage(), e);
      }
      shape = new KeyShape(new Reader(id, schema));
      keyShapes.put(id, shape);
    }
    return shape;
  }

  private static void checkWireFormat(byte[] bytes, String what) throws DecodeException {
    if (bytes.length == 0) {
      throw new DecodeException("not Confluent Avro: the record " + what + " is empty");
    }
    if (bytes[0] != MAGIC_BYTE) {
      throw new DecodeException(
          "not Confluent Avro: first byte 0x" + String.format("%02x", bytes[0] & 0xff) + looksLike(bytes)
              + " where the wire format's magic byte 0x00 belongs");
    }
    if (bytes.length < HEADER_LENGTH) {
      throw new DecodeException(
          "not Confluent Avro: the record " + what + " has " + bytes.length + " bytes, fewer than the 5-byte header");
    }
  }

  private static String looksLike(byte[] bytes) {
    int first = bytes[0] & 0xff;
    if (first == '{' || first == '[') {
      return " (looks like JSON)";
    }
    if (bytes.length >= 4 && bytes[0] == 'O' && bytes[1] == 'b' && bytes[2] == 'j' && bytes[3] == 1) {
      return " (looks like an Avro container file, not the Confluent wire format)";
    }
    if (first == '"' || first >= 0x20 && first < 0x7f) {
      return " (looks like text)";
    }
    return "";
  }

  private static int pos(Schema schema, String field) {
    if (schema.getType() != Schema.Type.RECORD) {
      return -1;
    }
    Schema.Field f = schema.getField(field);
    return f == null ? -1 : f.pos();
  }

  private static Long longOrNull(Object v) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v instanceof CharSequence s) {
      try {
        return Long.parseLong(s.toString());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** A writer schema with a reader to decode bodies: reused for every record of its id. */
  private static class Reader {
    final int id;
    final Schema schema;
    private final GenericDatumReader<Object> reader;
    private BinaryDecoder decoder;

    Reader(int id, Schema schema) {
      this.id = id;
      this.schema = schema;
      // A plain GenericData: no logical-type conversions, so values arrive as their wire types.
      this.reader = new GenericDatumReader<>(schema, schema, new GenericData());
    }

    Object read(byte[] bytes, Object reuse, String what) throws DecodeException {
      decoder = DecoderFactory.get().binaryDecoder(bytes, HEADER_LENGTH, bytes.length - HEADER_LENGTH, decoder);
      Object datum;
      try {
        datum = reader.read(reuse, decoder);
        if (!decoder.isEnd()) {
          throw new DecodeException(
              "the record " + what + " has bytes left over after its Avro body: it does not match writer schema id " + id);
        }
      } catch (IOException | RuntimeException e) {
        // Avro reports a body that does not match its schema with whatever it trips over
        // (EOFException, AvroRuntimeException, SystemLimitException for absurd lengths,
        // ArrayIndexOutOfBounds for a bad union index, …): all of them mean a bad record.
        throw new DecodeException(
            "the record " + what + "'s Avro body does not match writer schema id " + id + " (" + e + ")", e);
      }
      return datum;
    }
  }

  /** What a value schema id needs: its reader, where the envelope's fields are, its flattened row. */
  private final class ValueShape extends Reader {
    final boolean envelope;
    final int op;
    final int before;
    final int after;
    final int source;
    final int tsMs;
    final int flatOp;
    final int flatTsMs;
    final int flatSourceTsMs;
    final int flatDeleted;
    private AvroRowSchema flattenedRow;
    /** Row images of this envelope (before, after, or a key record), by record schema. */
    private final Map<Schema, AvroRowSchema> images = new IdentityHashMap<>();
    private Object reuse;

    ValueShape(int id, Schema schema) {
      super(id, schema);
      boolean record = schema.getType() == Schema.Type.RECORD;
      this.op = pos(schema, "op");
      this.before = pos(schema, "before");
      this.after = pos(schema, "after");
      this.source = pos(schema, "source");
      this.tsMs = pos(schema, "ts_ms");
      this.envelope = record && op >= 0 && (after >= 0 || before >= 0);
      this.flatOp = pos(schema, "__op");
      this.flatTsMs = pos(schema, "__ts_ms");
      this.flatSourceTsMs = pos(schema, "__source_ts_ms");
      this.flatDeleted = pos(schema, "__deleted");
    }

    Object read(byte[] value) throws DecodeException {
      Object datum = read(value, reuse, "value");
      reuse = datum; // the next record of this id reuses its objects: values are converted at once
      return datum;
    }

    AvroRowSchema image(Schema record) {
      // Few entries: the envelope's row schema and the key schemas its deletes fall back on.
      if (images.size() > 16) {
        images.clear();
      }
      return images.computeIfAbsent(record, r -> AvroRowSchema.of(r, Set.of(), AvroDebeziumDecoder.this::intern));
    }

    AvroRowSchema flattenedRow() {
      if (flattenedRow == null) {
        flattenedRow = AvroRowSchema.of(schema, FLATTENED_METADATA, AvroDebeziumDecoder.this::intern);
      }
      return flattenedRow;
    }
  }

  /** What a key schema id gives: its field names (the default primary key) and a reader. */
  private static final class KeyShape {
    final Reader reader;
    final List<String> fields;

    KeyShape(Reader reader) {
      this.reader = reader;
      this.fields = reader.schema.getType() != Schema.Type.RECORD
          ? List.of()
          : reader.schema.getFields().stream().map(Schema.Field::name).toList();
    }

    /** The key as a record, or null when its schema is not a record. */
    GenericRecord readRecord(byte[] key) throws DecodeException {
      if (reader.schema.getType() != Schema.Type.RECORD) {
        return null;
      }
      return (GenericRecord) reader.read(key, null, "key");
    }
  }
}

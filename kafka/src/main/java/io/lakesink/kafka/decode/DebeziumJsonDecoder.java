package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.NonTableTopic;
import io.lakesink.event.Operation;
import io.lakesink.kafka.decode.RowBuilder.Row;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Debezium change events in JSON: the envelope ({@code before}/{@code after}/{@code source}/
 * {@code op}) or a flattened record ({@code __op}, {@code __ts_ms}, {@code __source_ts_ms},
 * {@code __deleted}), with the Connect JSON converter's {@code schemas.enable} on or off.
 *
 * <p>MongoDB's envelope ({@code source.connector} is {@code mongodb}) carries documents as
 * extended-JSON text: {@link MongoDocuments} makes them rows.
 *
 * <p>With a schema, columns are typed by {@link io.lakesink.types.TypeMapping}; without one,
 * every column is a string. The change time is {@code source.ts_ms}, else the envelope's
 * {@code ts_ms}. Not thread-safe (it caches row schemas).
 *
 * <p>Decoding is on the worker's hot path, so a record is read in one streaming pass
 * ({@link PayloadScan}), without a tree of the whole record; a schema is looked up by its bytes.
 * The record key is only parsed if its field names are asked for ({@link RecordKeyFields}).
 */
public final class DebeziumJsonDecoder implements RecordDecoder {
  /** Fields ExtractNewRecordState adds to flattened records; they are metadata, not columns. */
  static final Set<String> FLATTENED_METADATA = Set.of("__op", "__ts_ms", "__source_ts_ms", "__deleted");

  private final UntypedSchemas untypedSchemas = new UntypedSchemas();
  private final RecordSchemas recordSchemas = new RecordSchemas();
  private final KeyRows keyRows = new KeyRows(untypedSchemas);
  private final MongoDocuments mongo = new MongoDocuments();
  private final RecordParser parser = new RecordParser();

  @Override
  public ChangeEvent decode(SourcePosition position, byte[] key, byte[] value) throws DecodeException {
    // A tombstone (null value): the delete itself was the preceding 'd' event.
    return value == null ? null : decode(position, key, Document.of(value));
  }

  /** Reads the record where the consumer fetched it: its bytes are not copied first. */
  @Override
  public ChangeEvent decode(SourcePosition position, byte[] key, ByteBuffer value) throws DecodeException {
    return value == null ? null : decode(position, key, RecordBytes.document(value));
  }

  private ChangeEvent decode(SourcePosition position, byte[] key, Document doc) throws DecodeException {
    Payload payload = payloadWithLastSchema(doc);
    if (payload == null) {
      payload = payload(doc);
    }
    // The record's parser is closed by now: a part read again (a delete's before image) reuses it.
    return payload == NO_PAYLOAD ? null : event(position, doc, payload.scan(), payload.range(), key);
  }

  /** A record whose payload is JSON null: no change. */
  private static final Payload NO_PAYLOAD = new Payload(null, null);

  /** The payload of a record read whole, or {@link #NO_PAYLOAD}. */
  private Payload payload(Document doc) throws DecodeException {
    try (JsonParser p = parser.open(doc.bytes(), doc.start(), doc.end())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        refuseUnlessNull(doc);
        return NO_PAYLOAD;
      }
      PayloadScan payload = PayloadScan.root(p, doc, recordSchemas, untypedSchemas);
      ConnectWrapper wrapper = payload.wrapper();
      if (!wrapper.present()) {
        return new Payload(payload, doc.whole());
      }
      if (wrapper.payloadType() == JsonNodeType.NULL) {
        return NO_PAYLOAD;
      }
      if (wrapper.payloadType() != JsonNodeType.OBJECT) {
        throw new DecodeException("expected a JSON object, found " + wrapper.payloadType());
      }
      return new Payload(wrapper.payload(), wrapper.payloadRange());
    } catch (IOException e) {
      throw notJson("value", e);
    } catch (NumberFormatException e) {
      throw numberTooLarge("value");
    }
  }

  /** The payload object and where it is in the record. */
  private record Payload(PayloadScan scan, Document.Range range) {}

  /**
   * The payload of a record with the same schema as the last one, read without reading the
   * schema; null when the record is not that, or is not well-formed (the whole record is then
   * read, which says what is wrong and where).
   */
  private Payload payloadWithLastSchema(Document doc) throws DecodeException {
    byte[] value = doc.bytes();
    int start = recordSchemas.payloadAfterLastSchema(doc);
    if (start < 0) {
      return null;
    }
    try (JsonParser p = parser.open(value, start, doc.end())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      PayloadScan scan = PayloadScan.payload(p, start, recordSchemas.last(), untypedSchemas);
      int end = JsonTokens.position(p, start);
      // The wrapper must end with the payload, as a tree would have read it.
      int i = end;
      while (i < doc.end() && (value[i] == ' ' || value[i] == '\n' || value[i] == '\r' || value[i] == '\t')) {
        i++;
      }
      return i < doc.end() && value[i] == '}' ? new Payload(scan, new Document.Range(start, end)) : null;
    } catch (IOException e) {
      return null;
    } catch (NumberFormatException e) {
      throw numberTooLarge("value");
    }
  }

  private ChangeEvent event(SourcePosition position, Document doc, PayloadScan payload, Document.Range range, byte[] key)
      throws DecodeException {
    try {
      List<String> keyFields = RecordKeyFields.of(key);
      return payload.isEnvelope()
          ? envelope(position, doc, payload, key, keyFields, doc.size())
          : flattened(position, doc, payload.flattened(doc, range), keyFields, doc.size());
    } catch (IOException e) {
      throw notJson("value", e); // the record was read whole: parts read again are well-formed
    } catch (NumberFormatException e) {
      throw numberTooLarge("value");
    }
  }

  /** A record whose value is not an object: no change for JSON null, else refused. */
  private static void refuseUnlessNull(Document doc) throws DecodeException {
    JsonNode root = parse(doc.bytes(), doc.start(), doc.size(), "value"); // rare: read whole, for the same messages as any record
    if (root.isNull()) {
      return;
    }
    throw new DecodeException("expected a JSON object, found " + root.getNodeType());
  }

  private ChangeEvent envelope(
      SourcePosition position, Document doc, PayloadScan payload, byte[] key, List<String> keyFields, int size)
      throws DecodeException, IOException {
    String code = payload.opCode;
    if ("m".equals(code)) {
      return null; // a logical decoding message (PostgreSQL pg_logical_emit_message) changes no row
    }
    Operation op = Operation.fromCode(code);
    if (op == null) {
      throw new DecodeException("the Debezium field 'op' holds " + OpCodes.describe(code) + " (expected c, u, d, r or t)");
    }
    Long ts = payload.sourceTsMs != null ? payload.sourceTsMs : payload.tsMs;
    if (op == Operation.TRUNCATE) {
      return ChangeEvent.truncate(position, ts, size); // no before, no after: the whole table
    }
    if (payload.mongo
        && payload.afterType != JsonNodeType.OBJECT && payload.beforeType != JsonNodeType.OBJECT) {
      return mongo.event(position, op, ts, payload.afterText, payload.beforeText, payload.updateDescription,
          () -> MongoDocuments.keyIdOfJson(key), size, payload.snapshotLast);
    }
    boolean delete = op == Operation.DELETE;
    String imageField = delete ? "before" : "after";
    JsonNodeType image = delete ? payload.beforeType : payload.afterType;
    Row row;
    if (image == null || image == JsonNodeType.NULL) {
      if (!delete) {
        throw new DecodeException("a '" + code + "' event without an 'after' image");
      }
      // A delete without a before image (REPLICA IDENTITY DEFAULT, …): the key identifies it.
      row = keyRows.of(key);
    } else if (image != JsonNodeType.OBJECT) {
      throw new DecodeException("the event's '" + imageField + "' image is a JSON " + image + ", not an object");
    } else if (delete) {
      RowBuilder before = payload.builder(RecordSchema.Image.BEFORE);
      PayloadScan.readObject(parser, doc, payload.beforeRange, before);
      row = before.finish(doc);
    } else {
      row = payload.after.finish(doc);
    }
    ChangeEvent event = new ChangeEvent(position, op, ts, row.schema(), row.values(), keyFields, size);
    return payload.snapshotLast ? event.asSnapshotEnd() : event;
  }

  private static ChangeEvent flattened(SourcePosition position, Document doc, PayloadScan payload, List<String> keyFields, int size)
      throws DecodeException, IOException {
    Operation op = Operation.fromCode(payload.flatOpCode);
    if (payload.flatOpCode != null && op == null) {
      throw new DecodeException("the field '__op' holds " + OpCodes.describe(payload.flatOpCode) + " (expected c, u, d, r or t)");
    }
    if (payload.deleted && op == null) {
      op = Operation.DELETE;
    }
    Long ts = payload.flatSourceTsMs != null ? payload.flatSourceTsMs : payload.flatTsMs;
    if (op == Operation.TRUNCATE) {
      return ChangeEvent.truncate(position, ts, size); // whatever columns it carries are not a row
    }
    Row row = payload.flat.finish(doc);
    if (op == null) {
      // Without __op it is a flattened row, unless it is a record of a topic with no table changes.
      Optional<NonTableTopic> other = NonTableTopic.byShape(payload.schemaName(), name -> row.schema().indexOf(name) >= 0);
      if (other.isPresent()) {
        throw DecodeException.nonTableRecord(position.topic(), other.get());
      }
    }
    return new ChangeEvent(position, op, ts, row.schema(), row.values(), keyFields, size);
  }

  static JsonNode parse(byte[] bytes, String what) throws DecodeException {
    return parse(bytes, 0, bytes.length, what);
  }

  private static JsonNode parse(byte[] bytes, int offset, int length, String what) throws DecodeException {
    try {
      JsonNode n = JsonTokens.MAPPER.readTree(bytes, offset, length);
      if (n == null) {
        throw new DecodeException("the record " + what + " is empty");
      }
      return n;
    } catch (IOException e) {
      throw notJson(what, e);
    } catch (NumberFormatException e) {
      throw numberTooLarge(what);
    }
  }

  /**
   * Jackson reads a number like {@code 1e99999999999} as a decimal only when asked for its value,
   * and then refuses its exponent with a NumberFormatException (which quotes it: not passed on).
   */
  private static DecodeException numberTooLarge(String what) {
    return new DecodeException("the record " + what + " holds a number whose exponent is too large to read as a decimal");
  }

  private static DecodeException notJson(String what, IOException e) {
    // The parser's own message quotes the offending token: the position is said instead.
    String where = e instanceof JsonProcessingException j && j.getLocation() != null
        ? " at line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr()
        : "";
    if (e instanceof StreamReadException r) {
      // The exception would keep its parser, and the parser the array it read: the consumer's
      // whole fetch buffer, held for as long as the table's failure is.
      r.withParser(null);
    }
    return new DecodeException("the record " + what + " is not valid JSON" + where, e);
  }
}

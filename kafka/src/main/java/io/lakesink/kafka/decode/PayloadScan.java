package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.util.Set;

/**
 * One streaming pass over a payload object, which may be a Debezium envelope or a flattened row:
 * which one is only known at its end (fields come in any order), so the pass keeps what either
 * needs. The {@code after} image is read into a row as it goes by (Debezium writes it before
 * {@code op}); {@code before} is read past and read again only for a delete; the fields are
 * collected as flattened columns until the payload is known to be an envelope (not at all when
 * it starts like one: it is then read again in the rare case it was a flattened row after all).
 * The decoder reads the fields (package-private) to decide what the payload was.
 */
final class PayloadScan {
  private final UntypedSchemas untyped;
  private final RecordSchema schema; // null when the record has none
  // A root object's record and schemas (null for a payload read on its own), for the Connect
  // converter's wrapper; the wrapper itself once a schema or payload field was seen: most
  // records have neither, and an object for nothing would be one more allocation per event.
  private final Document rootDoc;
  private final RecordSchemas rootSchemas;
  private ConnectWrapper wrapper;

  /** The wrapper of a root without {@code schema} or {@code payload}. */
  private static final ConnectWrapper NO_WRAPPER = new ConnectWrapper(null, null, null);

  // The envelope: JsonNode.has / asText(null) / longValue semantics of the fields, last one wins.
  boolean hasOp;
  String opCode;
  JsonNodeType afterType; // null when absent
  JsonNodeType beforeType;
  RowBuilder after; // when afterType is OBJECT
  Document.Range beforeRange; // when beforeType is OBJECT
  Long sourceTsMs;
  boolean mongo; // source.connector is "mongodb", which sends documents as text
  String afterText; // when afterType is STRING (MongoDB)
  String beforeText; // when beforeType is STRING (MongoDB with pre-images)
  boolean updateDescription; // MongoDB's description of an update, in place of a full document
  boolean sourceBlock; // a 'source' object was read
  boolean snapshotLast;
  Long tsMs;

  // A flattened row.
  String flatOpCode;
  boolean deleted;
  Long flatTsMs;
  Long flatSourceTsMs;
  RowBuilder flat; // null once the payload is known (or taken) to be an envelope
  private boolean flatSkipped; // its fields were not collected: read it again if it is flattened after all

  /**
   * Fields Debezium writes first in an envelope ({@code before}, as the converter writes it). A
   * payload starting with one is taken for an envelope; should it turn out a flattened row with
   * such a column after all, it is read again.
   */
  private static final Set<String> ENVELOPE_FIRST = Set.of("before", "after", "op");

  private PayloadScan(UntypedSchemas untyped, RecordSchema schema, Document rootDoc, RecordSchemas rootSchemas) {
    this.untyped = untyped;
    this.schema = schema;
    this.rootDoc = rootDoc;
    this.rootSchemas = rootSchemas;
  }

  /** The root object of a record, which may also be the Connect converter's schema/payload wrapper. */
  static PayloadScan root(JsonParser p, Document doc, RecordSchemas schemas, UntypedSchemas untyped) throws IOException {
    PayloadScan scan = new PayloadScan(untyped, null, doc, schemas);
    scan.scan(p, doc.start()); // the parser reads from the record's start: its offsets count from there
    return scan;
  }

  /**
   * The payload object whose START_OBJECT is the current token, read to its END_OBJECT with a
   * schema already known.
   *
   * @param base where the parser's input starts in the record
   */
  static PayloadScan payload(JsonParser p, int base, RecordSchema schema, UntypedSchemas untyped) throws IOException {
    PayloadScan scan = new PayloadScan(untyped, schema, null, null);
    scan.scan(p, base);
    return scan;
  }

  /** The root's wrapper fields, present or not. */
  ConnectWrapper wrapper() {
    return wrapper != null ? wrapper : NO_WRAPPER;
  }

  /**
   * This payload as a flattened row: itself, or read again from {@code range} when its fields
   * were not collected as columns.
   */
  PayloadScan flattened(Document doc, Document.Range range) throws IOException {
    if (!flatSkipped) {
      return this;
    }
    PayloadScan again = new PayloadScan(untyped, schema, null, null);
    try (JsonParser p = JsonTokens.parser(doc.bytes(), range.start(), range.end())) {
      p.nextToken();
      again.scanFields(p, range.start());
    }
    return again;
  }

  /**
   * An {@code op} with a row image, or a truncate or message event: Debezium documents those with
   * only {@code source}, {@code op} and {@code ts_ms} (and {@code message}); the JSON converter
   * adds null images when the envelope schema is written, but need not.
   */
  boolean isEnvelope() {
    return hasOp && (afterType != null || beforeType != null || sourceBlock && ("t".equals(opCode) || "m".equals(opCode)));
  }

  /** The name of the record's value schema, or null without one. */
  String schemaName() {
    return schema == null ? null : schema.name();
  }

  RowBuilder builder(RecordSchema.Image image) {
    return schema == null ? new UntypedRowBuilder(untyped, image == RecordSchema.Image.FLATTENED) : schema.builder(image, untyped);
  }

  /** Reads an object at {@code range} of the record into a builder. */
  static void readObject(RecordParser parser, Document doc, Document.Range range, RowBuilder into) throws IOException {
    try (JsonParser p = parser.open(doc.bytes(), range.start(), range.end())) {
      p.nextToken();
      readFields(p, into);
    }
  }

  /** Reads the fields of the object whose START_OBJECT is the current token, to its END_OBJECT. */
  private static void readFields(JsonParser p, RowBuilder into) throws IOException {
    String name;
    while ((name = p.nextFieldName()) != null) {
      p.nextToken();
      into.value(name, p);
    }
  }

  private void scan(JsonParser p, int base) throws IOException {
    String name = p.nextFieldName();
    if (name != null && ENVELOPE_FIRST.contains(name)) {
      flatSkipped = true; // surely an envelope: collecting its fields as columns would be wasted
    } else {
      flat = builder(RecordSchema.Image.FLATTENED);
    }
    fields(name, p, base);
  }

  /** Reads the fields as they are, collecting them all as flattened columns. */
  private void scanFields(JsonParser p, int base) throws IOException {
    flat = builder(RecordSchema.Image.FLATTENED);
    fields(p.nextFieldName(), p, base);
  }

  private void fields(String first, JsonParser p, int base) throws IOException {
    for (String name = first; name != null; name = p.nextFieldName()) {
      JsonToken t = p.nextToken();
      field(name, t, p, base);
      if (flat != null && isEnvelope()) {
        flat = null; // its fields are no columns
      }
    }
  }

  private void field(String name, JsonToken t, JsonParser p, int base) throws IOException {
    boolean container = t.isStructStart();
    boolean wrapperField = rootDoc != null && (name.equals("schema") || name.equals("payload"));
    // Where a container starts, when it may be read again (a location costs an allocation).
    int start = container && (flat != null || wrapperField || name.equals("before")) ? JsonTokens.tokenStart(p, base) : -1;
    boolean readPast = false; // a container this pass consumed for its own purpose
    switch (name) {
      case "after" -> {
        afterType = JsonTokens.type(t);
        after = null;
        afterText = t == JsonToken.VALUE_STRING ? p.getText() : null;
        if (t == JsonToken.START_OBJECT) {
          after = builder(RecordSchema.Image.AFTER);
          readFields(p, after);
        } else {
          p.skipChildren();
        }
        readPast = container;
      }
      case "before" -> {
        beforeType = JsonTokens.type(t);
        beforeRange = null;
        beforeText = t == JsonToken.VALUE_STRING ? p.getText() : null;
        p.skipChildren();
        readPast = container;
      }
      case "source" -> {
        sourceTsMs = null;
        mongo = false;
        snapshotLast = false;
        sourceBlock = t == JsonToken.START_OBJECT;
        if (t == JsonToken.START_OBJECT) {
          source(p);
        } else {
          p.skipChildren();
        }
        readPast = container;
      }
      case "updateDescription" -> updateDescription = t == JsonToken.START_OBJECT;
      case "op" -> {
        hasOp = true;
        opCode = JsonTokens.asText(p);
      }
      case "ts_ms" -> tsMs = JsonTokens.longOrNull(p);
      case "__op" -> flatOpCode = JsonTokens.asText(p);
      case "__deleted" -> deleted = t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_STRING && "true".equalsIgnoreCase(p.getText());
      case "__ts_ms" -> flatTsMs = JsonTokens.longOrNull(p);
      case "__source_ts_ms" -> flatSourceTsMs = JsonTokens.longOrNull(p);
      case "schema", "payload" -> readPast = wrapperField && rootWrapper().field(name, t, p, start, base);
      default -> { }
    }
    if (readPast) {
      if (start >= 0) {
        Document.Range range = new Document.Range(start, JsonTokens.position(p, base));
        if (name.equals("before") && t == JsonToken.START_OBJECT) {
          beforeRange = range;
        }
        if (flat != null) {
          flat.deferred(name, range);
        }
      }
    } else if (flat != null) {
      flat.value(name, p);
    } else {
      p.skipChildren();
    }
  }

  private ConnectWrapper rootWrapper() {
    if (wrapper == null) {
      wrapper = new ConnectWrapper(rootDoc, rootSchemas, untyped);
    }
    return wrapper;
  }

  /** {@code source.ts_ms}, {@code source.connector} and {@code source.snapshot}; the rest of the block is read past. */
  private void source(JsonParser p) throws IOException {
    String name;
    while ((name = p.nextFieldName()) != null) {
      JsonToken t = p.nextToken();
      if (name.equals("ts_ms")) {
        sourceTsMs = JsonTokens.longOrNull(p);
      } else if (name.equals("connector")) {
        // Compared without a String for each record, as 'snapshot' below: this is the hot path.
        mongo = t == JsonToken.VALUE_STRING && p.getTextLength() == 7 && MongoDocuments.CONNECTOR.equals(p.getText());
      } else if (name.equals("snapshot")) {
        snapshotLast = t == JsonToken.VALUE_STRING && p.getTextLength() == 4 && "last".equals(p.getText());
      }
      p.skipChildren();
    }
  }
}

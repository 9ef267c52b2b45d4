package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;

/**
 * The root's {@code schema} and {@code payload} fields. With both, the record was written by
 * the Connect JSON converter with {@code schemas.enable}: the payload is the event. It is read
 * on the way when the schema came first (as the converter writes it), else afterwards.
 */
final class ConnectWrapper {
  private final Document doc;
  private final RecordSchemas schemas;
  private final UntypedSchemas untyped;
  private boolean hasSchema;
  private Document.Range schemaRange; // an object or array schema, looked up when needed
  private RecordSchema schema;
  private JsonNodeType payloadType; // null when absent
  private Document.Range payloadRange;
  private PayloadScan payload;
  private RecordSchema payloadReadWith;

  ConnectWrapper(Document doc, RecordSchemas schemas, UntypedSchemas untyped) {
    this.doc = doc;
    this.schemas = schemas;
    this.untyped = untyped;
  }

  /** @return whether the field's value (an object or array) was read past */
  boolean field(String name, JsonToken t, JsonParser p, int start, int base) throws IOException {
    if (name.equals("schema")) {
      hasSchema = true;
      schema = t.isStructStart() ? null : new RecordSchema(JsonTokens.node(p)); // a scalar: no use caching it
      p.skipChildren();
      schemaRange = t.isStructStart() ? new Document.Range(start, JsonTokens.position(p, base)) : null;
      return t.isStructStart();
    }
    payloadType = JsonTokens.type(t);
    payload = null;
    if (t == JsonToken.START_OBJECT && hasSchema) {
      payloadReadWith = schema();
      payload = PayloadScan.payload(p, base, payloadReadWith, untyped);
    } else {
      p.skipChildren();
    }
    payloadRange = t.isStructStart() ? new Document.Range(start, JsonTokens.position(p, base)) : null;
    return t.isStructStart();
  }

  /** Whether the root was the wrapper: it had both fields. */
  boolean present() {
    return hasSchema && payloadType != null;
  }

  JsonNodeType payloadType() {
    return payloadType;
  }

  Document.Range payloadRange() {
    return payloadRange;
  }

  RecordSchema schema() throws IOException {
    if (schema == null) {
      schema = schemas.get(doc, schemaRange);
    }
    return schema;
  }

  /** The payload object, read with the record's schema (the last one given, as in a tree). */
  PayloadScan payload() throws IOException {
    RecordSchema s = schema();
    if (payload == null || payloadReadWith != s) {
      try (JsonParser p = JsonTokens.parser(doc.bytes(), payloadRange.start(), payloadRange.end())) {
        p.nextToken();
        payload = PayloadScan.payload(p, payloadRange.start(), s, untyped);
      }
      payloadReadWith = s;
    }
    return payload;
  }
}

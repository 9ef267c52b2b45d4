package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A row typed by a Connect schema. The values are kept as small trees and converted at the end,
 * in column order, as {@link ConnectJsonSchema#values} does; the schema itself is only made then,
 * so a schema that cannot be read is reported for a record that needs it and no other.
 */
final class TypedRowBuilder implements RowBuilder {
  /** Makes (or recalls) the row schema, or says why the record's schema cannot be read. */
  interface SchemaSource {
    ConnectJsonSchema get() throws DecodeException;
  }

  private final SchemaSource schema;
  private final Map<String, Object> fields = new HashMap<>(); // a JsonNode or a Document.Range

  TypedRowBuilder(SchemaSource schema) {
    this.schema = schema;
  }

  @Override
  public void value(String name, JsonParser p) throws IOException {
    fields.put(name, JsonTokens.node(p));
  }

  @Override
  public void deferred(String name, Document.Range range) {
    fields.put(name, range);
  }

  @Override
  public Row finish(Document doc) throws DecodeException, IOException {
    ConnectJsonSchema typed = schema.get();
    Object[] values = new Object[typed.rowSchema.size()];
    for (int i = 0; i < values.length; i++) {
      Object raw = fields.get(typed.rowSchema.columns().get(i).name());
      JsonNode v = raw instanceof Document.Range r ? doc.tree(r) : (JsonNode) raw;
      values[i] = typed.convert(i, v);
    }
    return new Row(typed.rowSchema, values);
  }
}

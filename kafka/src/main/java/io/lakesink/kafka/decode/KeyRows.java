package io.lakesink.kafka.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.kafka.decode.RowBuilder.Row;
import io.lakesink.types.DecimalOutOfBoundsException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The row of a delete without a before image (REPLICA IDENTITY DEFAULT, …), which only its
 * record key identifies. Rare, so the key is read as a tree.
 */
final class KeyRows {
  private final UntypedSchemas untyped;
  private final Map<JsonNode, ConnectJsonSchema> schemas = new LruCache<>(LruCache.DEFAULT_CAPACITY);

  KeyRows(UntypedSchemas untyped) {
    this.untyped = untyped;
  }

  Row of(byte[] key) throws DecodeException {
    JsonNode keyRoot = key == null ? null : DebeziumJsonDecoder.parse(key, "key");
    JsonNode image = keyRoot != null && keyRoot.has("payload") && keyRoot.has("schema") ? keyRoot.get("payload") : keyRoot;
    JsonNode schema = keyRoot != null && keyRoot.has("schema") ? keyRoot.get("schema") : null;
    if (image == null || !image.isObject()) {
      throw new DecodeException("a delete event with neither a 'before' image nor a record key");
    }
    if (schema != null && !schema.isNull()) {
      ConnectJsonSchema typed = schemas.get(schema);
      if (typed == null) {
        typed = ConnectJsonSchema.of(schema);
        schemas.put(schema, typed);
      }
      return new Row(typed.rowSchema, typed.values(image));
    }
    List<String> names = new ArrayList<>(image.size());
    for (Iterator<String> it = image.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    Object[] values = new Object[names.size()];
    for (int i = 0; i < values.length; i++) {
      try {
        values[i] = JsonValues.text(image.get(names.get(i)));
      } catch (DecimalOutOfBoundsException e) {
        throw new DecodeException("column " + names.get(i) + ": " + e.getMessage(), e); // never the value: it is the problem
      }
    }
    return new Row(untyped.of(List.copyOf(names)), values);
  }
}

package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.AbstractList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The field names of a JSON record key, read only when first asked for. They are the primary key
 * only when a subscription configures none, and then only for a merge: most records never need
 * them, so most keys are never parsed. Safe to read from any thread.
 */
final class RecordKeyFields extends AbstractList<String> {
  private final byte[] key;
  private volatile List<String> names; // null until first asked for

  private RecordKeyFields(byte[] key) {
    this.key = key;
  }

  static List<String> of(byte[] key) {
    return key == null ? List.of() : new RecordKeyFields(key);
  }

  @Override
  public String get(int index) {
    return names().get(index);
  }

  @Override
  public int size() {
    return names().size();
  }

  private List<String> names() {
    List<String> n = names;
    if (n == null) {
      n = parse(key); // two threads may both parse: they get the same immutable list
      names = n;
    }
    return n;
  }

  /**
   * The top-level field names of the key object, or of its {@code payload} when the key was
   * written with a schema; none for a key that is not a JSON object. A key that is not JSON only
   * loses its use as a default primary key.
   */
  static List<String> parse(byte[] key) {
    try (JsonParser p = JsonTokens.parser(key, 0, key.length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return List.of();
      }
      return fieldNames(p);
    } catch (IOException e) {
      return List.of();
    }
  }

  private static List<String> fieldNames(JsonParser p) throws IOException {
    Set<String> names = new LinkedHashSet<>(); // a field given twice keeps its first place, as in a tree
    boolean schema = false;
    boolean payload = false;
    Set<String> payloadNames = Set.of();
    String name;
    while ((name = p.nextFieldName()) != null) {
      names.add(name);
      JsonToken t = p.nextToken();
      schema |= name.equals("schema");
      if (name.equals("payload")) {
        payload = true;
        payloadNames = t == JsonToken.START_OBJECT ? namesOnly(p) : Set.of();
      }
      p.skipChildren();
    }
    return List.copyOf(schema && payload ? payloadNames : names);
  }

  private static Set<String> namesOnly(JsonParser p) throws IOException {
    Set<String> names = new LinkedHashSet<>();
    String name;
    while ((name = p.nextFieldName()) != null) {
      names.add(name);
      p.nextToken();
      p.skipChildren();
    }
    return names;
  }
}

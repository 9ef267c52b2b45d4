package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import io.lakesink.event.RowSchema;
import io.lakesink.types.DecimalOutOfBoundsException;
import io.lakesink.types.Decimals;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A row without a schema: every field a string column ({@link JsonValues#text} of its value).
 * Rows of a stream nearly always have the fields of the previous row in the same order; while
 * they do, neither a name lookup nor a schema lookup is needed, the names are not even kept
 * (they are the previous row's), and the values array, sized for the previous row, becomes the
 * row's without a copy: this runs once per event.
 */
final class UntypedRowBuilder implements RowBuilder {
  private static final int LINEAR_SEARCH_LIMIT = 16;
  private final UntypedSchemas schemas;
  private final RepeatedText repeated = RepeatedText.ofThisThread();
  private final boolean flattened;
  private final List<String> expected; // the previous row's fields
  private String[] names; // null while asExpected: the names are then expected's
  private Object[] values; // a String, null, a Failed or a Document.Range
  private int n;
  private boolean asExpected = true; // the fields so far are expected[0..n), in that order
  private Map<String, Integer> index; // names by position, once the row is too wide to search

  /** A value that could not be read; reported only if it is still the field's value at the end. */
  private record Failed(DecodeException e) {}

  /** @param flattened whether the flattened metadata fields ({@code __op}, …) are left out */
  UntypedRowBuilder(UntypedSchemas schemas, boolean flattened) {
    this.schemas = schemas;
    this.flattened = flattened;
    this.expected = schemas.lastNames();
    values = new Object[expected.isEmpty() ? 8 : expected.size()];
  }

  @Override
  public void value(String name, JsonParser p) throws IOException {
    if (flattened && DebeziumJsonDecoder.FLATTENED_METADATA.contains(name)) {
      p.skipChildren();
      return;
    }
    put(name, text(name, p));
  }

  @Override
  public void deferred(String name, Document.Range range) {
    if (!(flattened && DebeziumJsonDecoder.FLATTENED_METADATA.contains(name))) {
      put(name, range);
    }
  }

  /**
   * {@link JsonValues#text} of the value at the current token, without building a tree for a
   * scalar; a string or integer that repeats is one {@code String} ({@link RepeatedText}).
   */
  private Object text(String name, JsonParser p) throws IOException {
    return switch (p.currentToken()) {
      case VALUE_NULL -> null;
      case VALUE_STRING -> repeated.text(p);
      case VALUE_TRUE -> "true";
      case VALUE_FALSE -> "false";
      case VALUE_NUMBER_INT -> {
        String digits = repeated.text(p); // JSON allows no leading zeros or '+': the digits are the number's text
        yield digits.equals("-0") ? "0" : digits;
      }
      case VALUE_NUMBER_FLOAT -> {
        try {
          yield Decimals.plain(p.getDecimalValue()); // 1e3 reads 1000, 12.50 keeps its zero
        } catch (DecimalOutOfBoundsException e) {
          yield new Failed(new DecodeException("column " + name + ": " + e.getMessage(), e)); // never the value: it is the problem
        }
      }
      default -> JsonTokens.MAPPER.readTree(p).toString(); // an object or array: its JSON text
    };
  }

  private void put(String name, Object value) {
    if (asExpected && n < expected.size() && expected.get(n).equals(name)) {
      append(name, value); // expected has no duplicates, so neither has a prefix of it
      return;
    }
    if (asExpected) {
      asExpected = false;
      names = new String[values.length];
      for (int i = 0; i < n; i++) {
        names[i] = expected.get(i);
      }
    }
    int i = indexOf(name);
    if (i >= 0) {
      values[i] = value;
    } else {
      append(name, value);
      if (index != null) {
        index.put(name, n - 1);
      }
    }
  }

  private int indexOf(String name) {
    if (index == null && n > LINEAR_SEARCH_LIMIT) {
      index = new HashMap<>(); // a wide row: searching it field by field would be quadratic
      for (int i = 0; i < n; i++) {
        index.put(names[i], i);
      }
    }
    if (index != null) {
      Integer i = index.get(name);
      return i == null ? -1 : i;
    }
    for (int i = 0; i < n; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private void append(String name, Object value) {
    if (n == values.length) {
      values = Arrays.copyOf(values, n * 2);
      if (names != null) {
        names = Arrays.copyOf(names, n * 2);
      }
    }
    if (names != null) {
      names[n] = name;
    }
    values[n++] = value;
  }

  @Override
  public Row finish(Document doc) throws DecodeException, IOException {
    RowSchema schema = asExpected && n == expected.size()
        ? schemas.last()
        : schemas.of(asExpected ? List.copyOf(expected.subList(0, n)) : List.of(Arrays.copyOf(names, n)));
    Object[] out = n == values.length ? values : Arrays.copyOf(values, n); // the builder is done with it
    for (int i = 0; i < n; i++) {
      if (out[i] instanceof Failed f) {
        throw f.e();
      }
      if (out[i] instanceof Document.Range r) {
        out[i] = doc.tree(r).toString(); // an object or array: JsonValues.text is its JSON text
      }
    }
    return new Row(schema, out);
  }
}

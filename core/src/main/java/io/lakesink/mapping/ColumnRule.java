package io.lakesink.mapping;

import io.lakesink.event.ColumnType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of a subscription's column mapping.
 *
 * @param source the source column
 * @param name the target column (the source name when not renamed)
 * @param cast the target type, or null to keep the source type
 * @param primaryKey whether the column is part of the primary key
 */
public record ColumnRule(String source, String name, ColumnType cast, boolean primaryKey) {

  /**
   * The cast words a mapping accepts, in the order the documentation lists them. Only these:
   * an unknown word used to become string, so a typo such as {@code lnog} silently gave a text
   * column that can never be retyped. {@code decimal} maps to string on purpose: a mapping has
   * no precision and scale to give, and text keeps every digit.
   */
  private static final Map<String, ColumnType> CASTS = new LinkedHashMap<>();

  static {
    for (String w : new String[] {"int", "integer", "long", "bigint"}) CASTS.put(w, ColumnType.BIGINT);
    for (String w : new String[] {"float", "double"}) CASTS.put(w, ColumnType.DOUBLE);
    for (String w : new String[] {"bool", "boolean"}) CASTS.put(w, ColumnType.BOOLEAN);
    CASTS.put("date", ColumnType.DATE);
    for (String w : new String[] {"datetime", "timestamp"}) CASTS.put(w, ColumnType.TIMESTAMP);
    for (String w : new String[] {"string", "text", "varchar", "decimal"}) CASTS.put(w, ColumnType.STRING);
  }

  /** Every accepted cast word, for messages and documentation. */
  public static final List<String> CAST_WORDS = List.copyOf(CASTS.keySet());

  /**
   * The type a cast word stands for: int / integer / long / bigint → bigint, float / double →
   * double, bool / boolean → boolean, date → date, datetime / timestamp → timestamp, string /
   * text / varchar / decimal → string. Words are lowercase, as documented.
   *
   * @return empty for a word that is not one of {@link #CAST_WORDS}
   */
  public static Optional<ColumnType> castWord(String word) {
    return Optional.ofNullable(CASTS.get(word.trim()));
  }

  /**
   * @throws IllegalArgumentException for a word that is not one of {@link #CAST_WORDS}
   */
  public static ColumnType castType(String word) {
    return castWord(word).orElseThrow(() -> new IllegalArgumentException(
        "'" + word + "' is not a cast; use one of " + String.join(", ", CAST_WORDS)));
  }
}

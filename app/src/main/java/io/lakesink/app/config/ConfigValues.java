package io.lakesink.app.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes and durations as a user writes them. Both are strict: a whole number and a unit from a
 * short list, nothing else. The parsers only say whether a text is valid; {@link
 * ConfigValidator} builds the message that names the key.
 */
final class ConfigValues {
  private ConfigValues() {}

  /** Written in every message about a size. */
  static final String SIZE_UNITS = "B, KB, MB, GB, KiB, MiB or GiB (all binary: 1 KB = 1024 B)";
  static final String DURATION_UNITS = "ms, s, m or h";

  private static final Pattern SIZE = Pattern.compile("(\\d{1,18})\\s*([A-Za-z]*)");
  private static final Pattern DURATION = Pattern.compile("(\\d{1,18})\\s*([a-z]*)");
  private static final Pattern COUNT = Pattern.compile("\\d{1,18}");

  /** A size unit; KB and KiB are the same, as in the JVM's -Xmx and Kafka's own sizes. */
  enum SizeUnit {
    B(0), KB(10), MB(20), GB(30);

    final int shift;

    SizeUnit(int shift) {
      this.shift = shift;
    }

    /** Case does not matter (documented): {@code 64mb} and {@code 64MiB} are both 64 MiB. */
    static Optional<SizeUnit> of(String word) {
      return switch (word.toUpperCase(Locale.ROOT)) {
        case "B" -> Optional.of(B);
        case "KB", "KIB" -> Optional.of(KB);
        case "MB", "MIB" -> Optional.of(MB);
        case "GB", "GIB" -> Optional.of(GB);
        default -> Optional.empty();
      };
    }
  }

  /**
   * @param text a whole number with an optional unit
   * @param bare the unit of a number written without one
   * @return the size in bytes; empty when the text is not a positive size that fits a long
   */
  static Optional<Long> bytes(String text, SizeUnit bare) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    Optional<SizeUnit> unit = m.group(2).isEmpty() ? Optional.of(bare) : SizeUnit.of(m.group(2));
    long n = Long.parseLong(m.group(1));
    if (unit.isEmpty() || n <= 0 || n > (Long.MAX_VALUE >> unit.get().shift)) {
      return Optional.empty();
    }
    return Optional.of(n << unit.get().shift);
  }

  /**
   * @return the duration; empty unless the text is a positive whole number followed by one of
   *     {@link #DURATION_UNITS} (a bare number is refused: seconds or milliseconds is a guess)
   */
  static Optional<Duration> duration(String text) {
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    if (n <= 0) {
      return Optional.empty();
    }
    try {
      return switch (m.group(2)) {
        case "ms" -> Optional.of(Duration.ofMillis(n));
        case "s" -> Optional.of(Duration.ofSeconds(n));
        case "m" -> Optional.of(Duration.ofMinutes(n));
        case "h" -> Optional.of(Duration.ofHours(n));
        default -> Optional.empty();
      };
    } catch (ArithmeticException tooLong) {
      return Optional.empty();
    }
  }

  /** @return a positive whole number, without unit or sign */
  static Optional<Long> count(String text) {
    String t = text.trim();
    if (!COUNT.matcher(t).matches() || Long.parseLong(t) <= 0) {
      return Optional.empty();
    }
    return Optional.of(Long.parseLong(t));
  }
}

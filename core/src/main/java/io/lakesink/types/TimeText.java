package io.lakesink.types;

/**
 * A TIME value as text: {@code [-]HH:MM:SS.f}, hours at least two digits and unbounded, the
 * fraction as many digits as the source's unit holds (3 for milliseconds, 6 for microseconds, 9
 * for nanoseconds). A MySQL {@code TIME} is a duration ({@code -838:59:59} to {@code 838:59:59})
 * and PostgreSQL keeps {@code 24:00:00}, so a time of day does not fit {@code LocalTime}; and a
 * fixed width per unit makes one column's values line up and compare as their source does.
 */
final class TimeText {
  private TimeText() {}

  /** {@code value} units since midnight (negative: before it); {@code digits} is 3, 6 or 9. */
  static String of(long value, int digits) {
    long perSecond = switch (digits) {
      case 3 -> 1_000L;
      case 6 -> 1_000_000L;
      case 9 -> 1_000_000_000L;
      default -> throw new IllegalArgumentException("fraction digits " + digits);
    };
    // Truncating division keeps every part's sign with the value, so no part overflows when
    // negated (even Long.MIN_VALUE: its hours and remainders are far from the limits).
    long seconds = value / perSecond;
    long fraction = Math.abs(value % perSecond);
    long hours = Math.abs(seconds / 3600);
    long minutes = Math.abs(seconds % 3600 / 60);
    long secs = Math.abs(seconds % 60);
    StringBuilder s = new StringBuilder(24);
    if (value < 0) {
      s.append('-');
    }
    if (hours < 10) {
      s.append('0');
    }
    s.append(hours).append(':');
    pad(s, minutes, 2).append(':');
    pad(s, secs, 2).append('.');
    return pad(s, fraction, digits).toString();
  }

  private static StringBuilder pad(StringBuilder s, long v, int width) {
    String digits = Long.toString(v);
    for (int i = digits.length(); i < width; i++) {
      s.append('0');
    }
    return s.append(digits);
  }
}

package io.lakesink.event;

/**
 * Strings that are an integer's canonical decimal text ({@code "0"}, {@code "42"}, {@code "-7"}:
 * no sign but a minus, no leading zero, at most 18 digits): each is the text of exactly one
 * {@code long} and no other string is, so an index of such keys may hold the number instead of the
 * string. Ids arrive as such strings whenever a column is text: a key declared as a string, and
 * every column of schemaless JSON. Holding them as numbers spares a lookup the string's hash and
 * its comparison, each a read of a string elsewhere in the heap.
 */
public final class IntegerText {
  /** What {@link #valueOf} gives for a string that is not such a text: never the value of one. */
  public static final long NONE = Long.MIN_VALUE;
  private static final int MAX_DIGITS = 18; // below 10^18: no overflow, and never NONE

  private IntegerText() {}

  /** The integer {@code s} is the canonical text of, or {@link #NONE}. */
  public static long valueOf(String s) {
    int n = s.length();
    int i = n > 0 && s.charAt(0) == '-' ? 1 : 0;
    int digits = n - i;
    if (digits == 0 || digits > MAX_DIGITS) {
      return NONE;
    }
    char first = s.charAt(i);
    if (first == '0') {
      return n == 1 ? 0 : NONE; // "0" only: not "00", "01" or "-0"
    }
    long value = 0;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return NONE;
      }
      value = value * 10 + (c - '0');
    }
    return s.charAt(0) == '-' ? -value : value;
  }
}

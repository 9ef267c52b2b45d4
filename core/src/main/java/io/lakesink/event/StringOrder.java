package io.lakesink.event;

/**
 * The order of string values everywhere lakesink sorts or compares them against statistics: by
 * code points, which is the order of their UTF-8 bytes, Parquet's and Delta's order for strings
 * (Java's {@link String#compareTo} orders UTF-16 units, which differs once a character above
 * U+FFFF meets one from U+E000 to U+FFFF). One place for the merge's key order and file pruning
 * and the maintenance's clustering.
 */
public final class StringOrder {
  private StringOrder() {}

  /**
   * Code point order. It is UTF-16 order up to the first character that differs when neither of
   * the two is a surrogate, so that is compared char by char (a merge sorts its rows by key with
   * this: by code points throughout it was a tenth of a kept table's follow on string keys); a
   * surrogate there is compared by code points from the start (a lone surrogate as its own value).
   */
  public static int compare(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int k = 0; k < n; k++) {
      char x = a.charAt(k);
      char y = b.charAt(k);
      if (x != y) {
        if (!Character.isSurrogate(x) && !Character.isSurrogate(y)) {
          return Character.compare(x, y);
        }
        return byCodePoints(a, b);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  private static int byCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /**
   * Whether the string holds a surrogate (half of a character above U+FFFF, paired or not): only
   * such a string may not survive UTF-8, which cannot carry an unpaired one (Java writes {@code ?}
   * in its place).
   */
  public static boolean hasSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }
}

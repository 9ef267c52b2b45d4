package io.lakesink.iceberg.rest;

/**
 * Compares table locations as catalogs spell them: {@code file:/x}, {@code file:///x} and {@code
 * /x} are one local directory, and a trailing slash changes nothing.
 */
final class Locations {
  private Locations() {}

  static boolean same(String a, String b) {
    return a != null && b != null && normal(a).equals(normal(b));
  }

  static String normal(String location) {
    String s = location.strip();
    if (s.startsWith("file:///")) {
      s = s.substring("file://".length());
    } else if (s.startsWith("file:/")) {
      s = s.substring("file:".length());
    }
    while (s.length() > 1 && s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }
}

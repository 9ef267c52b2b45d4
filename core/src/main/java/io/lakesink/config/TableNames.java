package io.lakesink.config;

/** How target table names are derived; catalogs and paths only see these. */
public final class TableNames {
  private TableNames() {}

  /** Anything but letters, digits and {@code _} becomes {@code _}. */
  public static String sanitize(String name) {
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }

  public static String changelog(String sanitizedTable) {
    return sanitizedTable + "_APPEND";
  }
}

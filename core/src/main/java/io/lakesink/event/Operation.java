package io.lakesink.event;

/** The kind of change, as Debezium's {@code op} field codes it. */
public enum Operation {
  CREATE("c"),
  UPDATE("u"),
  DELETE("d"),
  READ("r"),
  /**
   * Every row of the table went at once (SQL {@code TRUNCATE}; Debezium emits it with
   * {@code skipped.operations=none}). The event carries no row: it cuts the table at its rank.
   */
  TRUNCATE("t");

  private final String code;

  Operation(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  /** Parses {@code c/u/d/r/t}; returns null for anything else (the caller decides what that means). */
  public static Operation fromCode(String code) {
    // By its one character: a switch on the string hashes it and compares it, for every change a
    // kept table's follow reads back.
    if (code == null || code.length() != 1) {
      return null;
    }
    return switch (code.charAt(0)) {
      case 'c' -> CREATE;
      case 'u' -> UPDATE;
      case 'd' -> DELETE;
      case 'r' -> READ;
      case 't' -> TRUNCATE;
      default -> null;
    };
  }
}

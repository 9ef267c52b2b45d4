package io.lakesink.kafka.decode;

/** How an operation code lakesink does not know is named in an error. */
public final class OpCodes {
  private OpCodes() {}

  /**
   * {@code "the unknown operation 'x'"} for a short code of letters, the form Debezium's codes
   * take (a newer connector's code is then visible in the quarantine); anything else is described,
   * not quoted: a record's text does not go into errors and logs.
   */
  public static String describe(String code) {
    if (code == null) {
      return "no operation";
    }
    if (code.length() <= 3 && !code.isEmpty() && code.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')) {
      return "the unknown operation '" + code + "'";
    }
    return "an unknown operation of " + code.length() + " characters";
  }
}

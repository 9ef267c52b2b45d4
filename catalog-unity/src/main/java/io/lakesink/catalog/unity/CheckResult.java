package io.lakesink.catalog.unity;

/**
 * The outcome of one connection-test step.
 *
 * @param check what was checked, e.g. {@code OAuth token exchange}
 * @param status whether it passed, could not be verified, or failed
 * @param detail what was found, or for a failure what to fix
 */
public record CheckResult(String check, Status status, String detail) {

  public enum Status {
    PASSED,
    /** The workspace does not let us find out (e.g. permissions not readable): not a failure. */
    NOT_VERIFIED,
    /** Something optional is missing (a grant only the current-state view needs): the data still flows. */
    WARNING,
    FAILED
  }

  static CheckResult passed(String check, String detail) {
    return new CheckResult(check, Status.PASSED, detail);
  }

  static CheckResult notVerified(String check, String detail) {
    return new CheckResult(check, Status.NOT_VERIFIED, detail);
  }

  static CheckResult warning(String check, String detail) {
    return new CheckResult(check, Status.WARNING, detail);
  }

  static CheckResult failed(String check, String detail) {
    return new CheckResult(check, Status.FAILED, detail);
  }
}

package io.lakesink.types;

/**
 * A source value that does not fit its source type or cannot become a lakesink value. The
 * message says why; it names no column (the caller knows which one it was converting).
 */
public class UnconvertibleValueException extends Exception {
  public UnconvertibleValueException(String reason) {
    super(reason);
  }

  public UnconvertibleValueException(String reason, Throwable cause) {
    super(reason, cause);
  }
}

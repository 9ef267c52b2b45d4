package io.lakesink.error;

/** A transient failure: the operation may succeed if repeated. */
public final class RetryableException extends LakesinkException {
  public RetryableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public ErrorKind kind() {
    return ErrorKind.RETRYABLE;
  }
}

package io.lakesink.error;

/**
 * Base of every error lakesink raises on purpose. Messages are built in {@link Errors} so that
 * wording stays consistent and no secret ever reaches one.
 */
public abstract sealed class LakesinkException extends RuntimeException
    permits RetryableException, TableFailureException, ConfigurationException {

  protected LakesinkException(String message, Throwable cause) {
    super(message, cause);
  }

  public abstract ErrorKind kind();
}

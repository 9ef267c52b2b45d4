package io.lakesink.error;

/** The configuration is wrong; the message names the key and what to change. */
public final class ConfigurationException extends LakesinkException {
  public ConfigurationException(String message) {
    super(message, null);
  }

  public ConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public ErrorKind kind() {
    return ErrorKind.CONFIGURATION;
  }
}

package io.lakesink.kafka.decode;

/** A record that cannot be decoded; the message says what is wrong with it. */
public final class DecodeException extends Exception {
  public DecodeException(String message) {
    super(message);
  }

  public DecodeException(String message, Throwable cause) {
    super(message, cause);
  }
}

package io.lakesink.types;

/**
 * A decimal too wide to render or rescale safely (see {@link Decimals#MAX_DIGITS}). Its message
 * gives the value's size, never the value: rendering it is exactly what must not happen.
 */
public final class DecimalOutOfBoundsException extends UnconvertibleValueException {
  public DecimalOutOfBoundsException(String reason) {
    super(reason);
  }
}

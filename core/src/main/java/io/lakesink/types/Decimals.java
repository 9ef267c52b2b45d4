package io.lakesink.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Bounds on decimals read from records. A BigDecimal is an unscaled integer and a 32-bit scale, so
 * a few bytes ({@code 1e999999999}, a Debezium VariableScaleDecimal with scale -1000000000) describe
 * a number whose plain notation has a billion digits: {@code toPlainString} or {@code setScale} on
 * it allocates gigabytes or spins, and since the record is read again after a restart, the worker
 * would never come back. Every decimal is therefore checked here, cheaply, before it is rendered
 * or rescaled: a decimal whose plain notation needs more than {@link #MAX_DIGITS} digits is refused.
 */
public final class Decimals {
  /** The most digits a decimal may have in plain notation (sign and decimal point not counted). */
  public static final int MAX_DIGITS = 1000;

  /** Any integer of more bits has more than MAX_DIGITS digits (log2(10) < 3.33). */
  private static final int MAX_BITS = (int) Math.ceil(MAX_DIGITS * Math.log(10) / Math.log(2)) + 1;

  private Decimals() {}

  /** The decimal {@code unscaled × 10^-scale}, once it is known to be within bounds. */
  public static BigDecimal of(BigInteger unscaled, int scale) throws DecimalOutOfBoundsException {
    check(unscaled, scale);
    return new BigDecimal(unscaled, scale);
  }

  /** The decimal itself, once it is known to be within bounds. */
  public static BigDecimal bounded(BigDecimal d) throws DecimalOutOfBoundsException {
    check(d.unscaledValue(), d.scale());
    return d;
  }

  /** Whether the decimal is within bounds: rendering and rescaling it are cheap. */
  public static boolean withinBounds(BigDecimal d) {
    return plainDigits(d.unscaledValue(), d.scale()) <= MAX_DIGITS;
  }

  /** Plain notation ({@code -0.005}, {@code 1000}), refused beyond the bound. */
  public static String plain(BigDecimal d) throws DecimalOutOfBoundsException {
    return bounded(d).toPlainString();
  }

  /**
   * The decimal at another scale, exactly; both the value and the result are checked first.
   *
   * @throws ArithmeticException when the value has more fractional digits than {@code scale}
   */
  public static BigDecimal rescale(BigDecimal d, int scale) throws DecimalOutOfBoundsException {
    bounded(d);
    if (Math.abs((long) scale) > MAX_DIGITS) {
      throw new DecimalOutOfBoundsException(
          "a decimal scale of " + scale + " is beyond lakesink's limit of " + MAX_DIGITS + " digits");
    }
    return bounded(d.setScale(scale, RoundingMode.UNNECESSARY)); // both operands are small now
  }

  private static void check(BigInteger unscaled, int scale) throws DecimalOutOfBoundsException {
    long digits = plainDigits(unscaled, scale);
    if (digits > MAX_DIGITS) {
      throw new DecimalOutOfBoundsException(
          (digits == Long.MAX_VALUE
                  ? "a decimal whose unscaled value alone has more than " + MAX_DIGITS + " digits"
                  : "a decimal of " + digits + " digits in plain notation (scale " + scale + ")")
              + " is beyond lakesink's limit of " + MAX_DIGITS + " digits");
    }
  }

  /**
   * How many digits plain notation needs, without rendering: Long.MAX_VALUE when the unscaled
   * value alone is too long (its exact digit count is not worth computing).
   */
  static long plainDigits(BigInteger unscaled, int scale) {
    if (unscaled.bitLength() > MAX_BITS) {
      return Long.MAX_VALUE;
    }
    if (unscaled.signum() == 0) {
      return scale <= 0 ? 1 : scale + 1L; // 0 and 0E+n render "0"; 0E-n renders "0.000…"
    }
    long precision = new BigDecimal(unscaled).precision(); // at most ~1000 digits: cheap
    return scale <= 0 ? precision - (long) scale : Math.max(precision, scale + 1L);
  }
}

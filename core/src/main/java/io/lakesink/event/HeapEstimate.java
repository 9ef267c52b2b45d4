package io.lakesink.event;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

/**
 * What a buffered event costs on the heap, estimated from its values (64-bit JVM, compressed
 * pointers). Buffers are bounded by this, not by the record's size on the wire: a 20-byte JSON
 * number becomes a 16-byte Long, but a short string field costs 40 bytes of headers before its
 * characters, so wire sizes undercount several times over. Errs on the high side.
 */
public final class HeapEstimate {
  private static final int EVENT_OVERHEAD = 24 + 24 + 32; // record, position, its topic reference
  private static final int ARRAY_HEADER = 16;
  private static final int REFERENCE = 4;

  private HeapEstimate() {}

  public static long of(ChangeEvent e) {
    return ofRow(e.values());
  }

  /**
   * What a row becomes as a change event: the event around it and its values, all of them (a
   * changelog row's metadata columns too: errs high).
   */
  public static long ofRow(Object[] row) {
    long size = EVENT_OVERHEAD + ARRAY_HEADER + (long) REFERENCE * row.length;
    for (Object v : row) {
      size += of(v);
    }
    return size;
  }

  /**
   * What the change event made of {@code row}'s values at {@code slots} costs: the event around
   * them, their array, its time boxed, and those values (a slot past the row's end reads null).
   * A changelog row read back becomes such an event: its metadata columns' values are not kept.
   */
  public static long ofEventAt(Object[] row, int[] slots) {
    long size = EVENT_OVERHEAD + ARRAY_HEADER + (long) REFERENCE * slots.length + 16;
    for (int slot : slots) {
      if (slot >= 0 && slot < row.length) {
        size += of(row[slot]);
      }
    }
    return size;
  }

  static long of(Object v) {
    if (v == null) {
      return 0;
    } else if (v instanceof String s) {
      return 40 + 2L * s.length();
    } else if (v instanceof Number && !(v instanceof BigDecimal || v instanceof BigInteger)) {
      return 16;
    } else if (v instanceof Boolean) {
      return 0; // Boolean.TRUE and FALSE are shared
    } else if (v instanceof BigDecimal d) {
      return 40 + 48 + d.unscaledValue().bitLength() / 8;
    } else if (v instanceof BigInteger i) {
      return 48 + i.bitLength() / 8;
    } else if (v instanceof byte[] b) {
      return ARRAY_HEADER + b.length;
    } else if (v instanceof Object[] a) {
      long size = ARRAY_HEADER + (long) REFERENCE * a.length;
      for (Object o : a) size += of(o);
      return size;
    } else if (v instanceof Collection<?> c) {
      long size = 40 + 24L * c.size();
      for (Object o : c) size += of(o);
      return size;
    } else if (v instanceof Map<?, ?> m) {
      long size = 48 + 40L * m.size();
      for (Map.Entry<?, ?> en : m.entrySet()) size += of(en.getKey()) + of(en.getValue());
      return size;
    }
    return 32; // dates, times, instants: a small object with a few fields
  }
}

package io.lakesink.bench;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Debezium create envelopes (JSON converter, {@code schemas.enable=false}) for tables of three
 * shapes, so the memory benchmark streams a realistic mix: a few small columns, a 10-column
 * order, or 40 text columns of multi-KB rows. Every event is a create of {@code id}; the
 * {@code source.ts_ms} is the caller's, which the freshness benchmark sets to the produce time
 * (it lands in the table's {@code __ts_ms}).
 */
enum ShapedEvents {
  /** 3 columns, about 300 bytes per envelope. */
  SMALL(3, 8, 16),
  /** 10 columns, about 600 bytes. */
  MEDIUM(10, 20, 60),
  /** 40 columns, about 2.6 KB. */
  WIDE(40, 40, 100);

  private static final String TEXT =
      "the quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs, sphinx of black quartz judge my vow";

  private final int columns;
  private final int minChars;
  private final int maxChars;

  ShapedEvents(int columns, int minChars, int maxChars) {
    this.columns = columns;
    this.minChars = minChars;
    this.maxChars = maxChars;
  }

  /** The shape of the {@code t}-th table of the memory benchmark: small, medium, wide in turn. */
  static ShapedEvents forTable(int t) {
    return values()[t % values().length];
  }

  /** One create envelope; deterministic for a given {@code random} state. */
  byte[] envelope(long id, long sourceTsMs, SplittableRandom random) {
    StringBuilder sb = new StringBuilder(columns * (maxChars + 16) + 256);
    sb.append("{\"before\":null,\"after\":{\"id\":").append(id);
    for (int c = 1; c < columns; c++) {
      sb.append(",\"c").append(c).append("\":");
      if (c % 4 == 1) {
        sb.append(random.nextLong(1_000_000_000L)); // a number
      } else {
        int from = random.nextInt(TEXT.length() - maxChars);
        sb.append('"').append(TEXT, from, from + minChars + random.nextInt(maxChars - minChars + 1)).append('"');
      }
    }
    sb.append("},\"source\":{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\",\"name\":\"bench\",\"ts_ms\":").append(sourceTsMs)
        .append(",\"snapshot\":\"false\",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"t\",\"lsn\":").append(id)
        .append("},\"transaction\":null,\"op\":\"c\",\"ts_ms\":").append(sourceTsMs).append('}');
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] key(long id) {
    return ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
  }
}

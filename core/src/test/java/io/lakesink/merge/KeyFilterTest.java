package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The key filter itself: never a false "no", few false "maybe"s, and never trusted when damaged or foreign. */
class KeyFilterTest {
  static final List<String> COLUMNS = List.of("tenant", "id");

  static List<Object> key(long i) {
    return List.of("tenant-" + (i % 7), i);
  }

  @Test
  void everyKeyAddedMayBeThereAndFewOthersSeemTo() {
    KeyFilter f = KeyFilter.forKeys(10_000);
    for (long i = 0; i < 10_000; i++) {
      f.add(key(i));
    }
    for (long i = 0; i < 10_000; i++) {
      assertTrue(f.mayContain(key(i)), "no false negative: " + key(i));
    }
    int falsePositives = 0;
    for (long i = 10_000; i < 110_000; i++) {
      falsePositives += f.mayContain(key(i)) ? 1 : 0;
    }
    assertTrue(falsePositives < 50, falsePositives + " false positives in 100,000 (about 7 expected)");
  }

  @Test
  void equalStoredValuesHashAlikeWhateverTheirJavaTypeAndTheHashIsStable() {
    assertEquals(KeyFilter.hash(List.of(5L)), KeyFilter.hash(List.of(5)), "an INT key read back as Integer or Long");
    for (long k : new long[] {0, 1, -1, 42, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40}) {
      assertEquals(KeyFilter.hash(List.of(k)), KeyFilter.hashLong(k), "the primitive path hashes as the general one: " + k);
    }
    for (String k : new String[] {"", "a", "tenant-1", "é", "日本語", "\uD83D\uDE00 emoji", "x".repeat(300)}) {
      byte[] utf8 = ("..." + k + "..").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(KeyFilter.hash(List.of(k)), KeyFilter.hashUtf8(utf8, 3, utf8.length - 5),
          "a string key hashes from its stored UTF-8 bytes as from the string: " + k);
    }
    assertTrue(KeyFilter.hash(List.of("ab", "c")) != KeyFilter.hash(List.of("a", "bc")));
    // Written by one worker, read by another: the hash must not depend on the JVM or its run (a
    // change of it would make every stored filter wrong: change the format version with it).
    assertEquals(45135423120760924L, KeyFilter.hash(List.of("tenant-1", 42L)));
    KeyFilter f = KeyFilter.forKeys(4);
    List<List<Object>> keys = List.of(List.of(Instant.parse("2026-12-02T00:00:00.123456Z")), List.of(LocalDate.of(1500, 1, 1)),
        List.of(new BigDecimal("1.50")), List.of(new byte[] {1, 2, 3}));
    keys.forEach(f::add);
    keys.forEach(k -> assertTrue(f.mayContain(k), k.toString()));
    assertTrue(f.mayContain(List.of(new byte[] {1, 2, 3})), "arrays by content");
  }

  @Test
  void aStoredFilterReadsBackOnlyForItsFileItsSizeAndItsColumnsAndOnlyWhole() {
    KeyFilter f = KeyFilter.forKeys(100);
    for (long i = 0; i < 100; i++) {
      f.add(key(i));
    }
    byte[] stored = f.encode("part-1.parquet", 4096, COLUMNS);

    KeyFilter back = KeyFilter.decode(stored, "part-1.parquet", 4096, COLUMNS).orElseThrow();
    for (long i = 0; i < 100; i++) {
      assertTrue(back.mayContain(key(i)));
    }
    assertTrue(KeyFilter.decode(stored, "part-2.parquet", 4096, COLUMNS).isEmpty(), "another file's");
    assertTrue(KeyFilter.decode(stored, "part-1.parquet", 4097, COLUMNS).isEmpty(), "another size of the file");
    assertTrue(KeyFilter.decode(stored, "part-1.parquet", 4096, List.of("id")).isEmpty(), "other key columns");
    for (int cut : new int[] {0, 3, 20, stored.length / 2, stored.length - 1}) {
      assertTrue(KeyFilter.decode(Arrays.copyOf(stored, cut), "part-1.parquet", 4096, COLUMNS).isEmpty(), "truncated at " + cut);
    }
    Random random = new Random(7);
    List<Integer> flipped = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      byte[] damaged = stored.clone();
      int at = random.nextInt(damaged.length);
      damaged[at] ^= (byte) (1 << random.nextInt(8));
      if (KeyFilter.decode(damaged, "part-1.parquet", 4096, COLUMNS).isPresent()) {
        flipped.add(at);
      }
    }
    assertEquals(List.of(), flipped, "a flipped bit is caught by the checksum");
  }
}

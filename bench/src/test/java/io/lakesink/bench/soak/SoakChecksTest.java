package io.lakesink.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The soak's verdicts catch what they are there to catch. */
class SoakChecksTest {
  static Map<String, Object> row(int partition, long offset) {
    return Map.of("__partition", partition, "__offset", offset);
  }

  static BitSet bits(int... offsets) {
    BitSet b = new BitSet();
    for (int o : offsets) b.set(o);
    return b;
  }

  @Test
  void changelogExactlyOncePasses() {
    List<String> v = new ArrayList<>();
    SoakChecks.changelog(List.of(row(0, 0), row(0, 2), row(1, 0)), Map.of(0, bits(0, 2), 1, bits(0)), v);
    assertEquals(List.of(), v);
  }

  @Test
  void changelogDuplicateMissingAndTombstoneRowsAreEachReported() {
    List<String> v = new ArrayList<>();
    // 0@2 twice, 1@0 missing, 0@1 is a tombstone's offset (no change there)
    SoakChecks.changelog(List.of(row(0, 0), row(0, 2), row(0, 2), row(0, 1)), Map.of(0, bits(0, 2), 1, bits(0)), v);
    assertEquals(3, v.size(), v.toString());
    assertTrue(v.get(0).contains("1 duplicate") && v.get(0).contains("0@2"), v.get(0));
    assertTrue(v.get(1).contains("1 missing") && v.get(1).contains("1@0"), v.get(1));
    assertTrue(v.get(2).contains("0@1"), v.get(2));
  }

  @Test
  void mergeDifferencesAreReported() {
    List<String> v = new ArrayList<>();
    SoakChecks.merge(List.of(Map.of("id", "1", "name", "v1"), Map.of("id", "2", "name", "v2")), Map.of("1", "v1", "2", "v2"), v);
    assertEquals(List.of(), v);
    // key 2 kept an old change, key 3 was deleted but is still there, key 4 is missing
    SoakChecks.merge(List.of(Map.of("id", "1", "name", "v1"), Map.of("id", "2", "name", "v0"), Map.of("id", "3", "name", "v3")),
        Map.of("1", "v1", "2", "v2", "4", "v4"), v);
    assertEquals(1, v.size(), v.toString());
    assertTrue(v.get(0).startsWith("merge: 3 keys differ"), v.get(0));
  }

  @Test
  void storedOffsetsMustEqualEndOffsets() {
    List<String> v = new ArrayList<>();
    SoakChecks.offsets("t", Map.of(0, 5L, 1, 7L), Map.of(0, 5L, 1, 7L), v);
    assertEquals(List.of(), v);
    SoakChecks.offsets("t", Map.of(0, 5L), Map.of(0, 5L, 1, 7L), v);
    assertEquals(1, v.size());
  }
}

package io.lakesink.bench.soak;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The soak's verdicts: each adds a violation, with the first offending positions, to a list. */
final class SoakChecks {
  private static final int EXAMPLES = 10;

  private SoakChecks() {}

  /** Every changelog row at an offset that carries a change, exactly once; no other row. */
  static void changelog(List<Map<String, Object>> rows, Map<Integer, BitSet> expected, List<String> violations) {
    Map<Integer, BitSet> seen = new HashMap<>();
    List<String> duplicates = new ArrayList<>();
    List<String> unexpected = new ArrayList<>();
    long duplicateCount = 0;
    long unexpectedCount = 0;
    for (Map<String, Object> row : rows) {
      int p = ((Number) row.get("__partition")).intValue();
      int offset = Math.toIntExact(((Number) row.get("__offset")).longValue());
      BitSet bits = seen.computeIfAbsent(p, x -> new BitSet());
      if (bits.get(offset)) {
        duplicateCount++;
        example(duplicates, p + "@" + offset);
      }
      bits.set(offset);
      if (!expected.getOrDefault(p, new BitSet()).get(offset)) {
        unexpectedCount++;
        example(unexpected, p + "@" + offset);
      }
    }
    long missingCount = 0;
    List<String> missing = new ArrayList<>();
    for (var e : new TreeMap<>(expected).entrySet()) {
      BitSet absent = (BitSet) e.getValue().clone();
      absent.andNot(seen.getOrDefault(e.getKey(), new BitSet()));
      missingCount += absent.cardinality();
      for (int o = absent.nextSetBit(0); o >= 0 && missing.size() < EXAMPLES; o = absent.nextSetBit(o + 1)) {
        missing.add(e.getKey() + "@" + o);
      }
    }
    if (duplicateCount > 0) {
      violations.add("changelog: " + duplicateCount + " duplicate (partition@offset), first " + duplicates);
    }
    if (missingCount > 0) {
      violations.add("changelog: " + missingCount + " missing (partition@offset), first " + missing);
    }
    if (unexpectedCount > 0) {
      violations.add("changelog: " + unexpectedCount + " rows at offsets that carry no change (tombstones?), first " + unexpected);
    }
  }

  /** The merged table holds exactly the last change of every key that was not deleted. */
  static void merge(List<Map<String, Object>> rows, Map<String, String> expected, List<String> violations) {
    Map<String, String> actual = new TreeMap<>();
    List<String> duplicateKeys = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      String id = String.valueOf(row.get("id"));
      if (actual.put(id, String.valueOf(row.get("name"))) != null) {
        example(duplicateKeys, id);
      }
    }
    if (!duplicateKeys.isEmpty()) {
      violations.add("merge: keys with more than one row, first " + duplicateKeys);
    }
    List<String> wrong = new ArrayList<>();
    long wrongCount = 0;
    for (String id : new TreeSet<>(union(actual, expected))) {
      String want = expected.get(id);
      String got = actual.get(id);
      if (want == null ? got != null : !want.equals(got)) {
        wrongCount++;
        example(wrong, "id " + id + ": table " + got + ", last change " + want);
      }
    }
    if (wrongCount > 0) {
      violations.add("merge: " + wrongCount + " keys differ from their last change, first " + wrong);
    }
  }

  /** The table's log stores each partition's end offset: everything was delivered, nothing beyond. */
  static void offsets(String table, Map<Integer, Long> stored, Map<Integer, Long> end, List<String> violations) {
    if (!stored.equals(end)) {
      violations.add(table + ": stored offsets " + new TreeMap<>(stored) + " differ from the topic's end offsets " + new TreeMap<>(end));
    }
  }

  private static TreeSet<String> union(Map<String, String> a, Map<String, String> b) {
    TreeSet<String> keys = new TreeSet<>(a.keySet());
    keys.addAll(b.keySet());
    return keys;
  }

  private static void example(List<String> list, String what) {
    if (list.size() < EXAMPLES) {
      list.add(what);
    }
  }
}

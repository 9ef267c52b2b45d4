package io.lakesink.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The history view's rules: versions, what closes them, and the current ones being the current-state view's rows. */
class HistoryTest {
  static Map<String, Object> change(Long id, String v, String op, Long ts, int partition, long offset) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("v", v);
    m.put("__op", op);
    m.put("__deleted", op.equals("d") || op.equals("t"));
    m.put("__ts_ms", ts);
    m.put("__partition", partition);
    m.put("__offset", offset);
    m.put("__ingest_date", null);
    return m;
  }

  static String versionOf(Map<String, Object> r) {
    return r.get("id") + ":" + r.get("v") + " [" + r.get(HistoryView.VALID_FROM) + ", " + r.get(HistoryView.VALID_TO) + ")"
        + (Boolean.TRUE.equals(r.get(HistoryView.IS_CURRENT)) ? " current" : "");
  }

  @Test
  void updatesDeletesAndTruncatesCloseVersions() {
    List<Map<String, Object>> log = List.of(
        change(1L, "a", "c", 10L, 0, 0),
        change(1L, "b", "u", 20L, 0, 1),
        change(2L, "x", "c", 15L, 0, 2),
        change(2L, "x", "d", 25L, 1, 0),   // closes 2's version, opens none
        change(2L, "y", "c", 30L, 1, 1),   // a new version of 2
        change(3L, "p", "c", 12L, 0, 3),
        change(null, null, "t", 28L, 0, 4), // closes 1:b and 3:p, not 2:y (ranked above it)
        change(1L, "c", "c", 40L, 0, 5),
        change(3L, "older", "u", 11L, 1, 2), // read late, ranked below 3:p: closed by it
        // A snapshot row stamped when it was read, then a change of its partition stamped
        // earlier: the change is the newer version, both valid from the rank time.
        change(4L, "snapshot", "r", 50L, 2, 0),
        change(4L, "changed", "u", 45L, 2, 1));
    List<String> versions = History.versions(log, List.of("id"), true).stream().map(HistoryTest::versionOf).sorted().toList();
    assertEquals(List.of(
        "1:a [10, 20)", "1:b [20, 28)", "1:c [40, null) current",
        "2:x [15, 25)", "2:y [30, null) current",
        "3:older [11, 12)", "3:p [12, 28)",
        "4:changed [50, null) current", "4:snapshot [50, 50)"), versions);
  }

  @Test
  void theCurrentVersionsAreTheCurrentStateViewsRows() {
    for (int seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      List<Map<String, Object>> log = new ArrayList<>();
      long[] offsets = new long[3];
      for (int i = 0; i < 200; i++) {
        int p = random.nextInt(3);
        Long ts = random.nextInt(15) == 0 ? null : (long) (i / 4 + random.nextInt(8));
        String op = random.nextInt(50) == 0 ? "t" : new String[] {"c", "u", "u", "d", "r"}[random.nextInt(5)];
        Long id = op.equals("t") ? null : (long) random.nextInt(12);
        log.add(change(id, op.equals("t") ? null : "v" + i, op, ts, p, offsets[p]++));
      }
      List<Map<String, Object>> current = new ArrayList<>();
      for (Map<String, Object> v : History.versions(log, List.of("id"), true)) {
        if (Boolean.TRUE.equals(v.get(HistoryView.IS_CURRENT))) {
          Map<String, Object> row = new HashMap<>(v);
          row.keySet().removeAll(List.of(HistoryView.VALID_FROM, HistoryView.VALID_TO, HistoryView.IS_CURRENT));
          current.add(row);
        }
      }
      List<Map<String, Object>> view = CurrentState.collapse(log, List.of("id"), true).stream()
          .map(r -> (Map<String, Object>) new HashMap<>(r)).toList();
      assertEquals(new java.util.HashSet<>(view), new java.util.HashSet<>(current), "seed " + seed);
    }
  }

  @Test
  void theStatementIsNamedAfterTheTableAndNeedsAKey() {
    String sql = HistoryView.sql(List.of("main", "bronze"), "orders", List.of("id"), false);
    assertTrue(sql.startsWith("CREATE OR REPLACE VIEW `main`.`bronze`.`orders_HISTORY` AS\n"), sql);
    assertTrue(sql.contains("FROM `main`.`bronze`.`orders_APPEND`"), sql);
    assertTrue(sql.contains("EXCEPT (`__op`, `__ts_ms`, `__deleted`"), sql);
    assertThrows(IllegalArgumentException.class, () -> HistoryView.query("`t`", List.of(), true));
  }
}

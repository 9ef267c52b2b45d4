package io.lakesink.view;

import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CurrentStateViewTest {
  @Test
  void keyedViewRanksThenFiltersDeletes() {
    assertEquals(
        """
        CREATE OR REPLACE VIEW `main`.`bronze`.`orders` AS
        SELECT * EXCEPT (`__deleted`, `__partition`, `__offset`, `__ingest_date`) FROM (
          SELECT * FROM `main`.`bronze`.`orders_APPEND`
          QUALIFY ROW_NUMBER() OVER (
            PARTITION BY `id`, `region`
            ORDER BY `__ts_ms` DESC NULLS LAST, `__partition` DESC NULLS LAST, `__offset` DESC NULLS LAST
          ) = 1
        )
        WHERE NOT `__deleted`;""",
        CurrentStateView.sql(List.of("main", "bronze"), "orders", List.of("id", "region"), true));
  }

  @Test
  void withoutKeyOnlyDeletedEventsAreDroppedAndMetadataCanBeHidden() {
    assertEquals(
        """
        CREATE OR REPLACE VIEW `events` AS
        SELECT * EXCEPT (`__op`, `__ts_ms`, `__deleted`, `__partition`, `__offset`, `__ingest_date`) FROM `events_APPEND`
        WHERE NOT `__deleted`;""",
        CurrentStateView.sql(List.of(), "events", List.of(), false));
  }

  @Test
  void identifiersAreQuoted() {
    assertTrue(CurrentStateView.sql(List.of(), "a", List.of("we`ird"), true).contains("PARTITION BY `we``ird`"));
  }

  @Test
  void inMemoryCollapseFollowsTheSameRules() {
    List<Map<String, Object>> log = new ArrayList<>();
    log.add(change(42, "pending", "c", 1760000000000L, 0, 1));
    log.add(change(42, "paid", "u", 1760000060000L, 0, 2));
    log.add(change(42, "shipped", "u", 1760000120000L, 0, 3));
    log.add(change(43, "pending", "c", 1760000130000L, 1, 1));
    log.add(change(43, "pending", "d", 1760000180000L, 1, 2));
    // Ties on __ts_ms: the higher partition, then the higher offset wins; NULL ranks last.
    log.add(change(44, "first", "u", 5L, 0, 9));
    log.add(change(44, "second", "u", 5L, 1, 1));
    log.add(change(45, "late", "u", null, 0, 50));
    log.add(change(45, "known", "u", 1L, 0, 10));
    List<Map<String, Object>> state = CurrentState.collapse(log, List.of("id"), true);
    state.sort((a, b) -> Integer.compare((Integer) a.get("id"), (Integer) b.get("id")));
    assertEquals(List.of(
        row("id", 42, "status", "shipped", "__op", "u", "__ts_ms", 1760000120000L),
        row("id", 44, "status", "second", "__op", "u", "__ts_ms", 5L),
        row("id", 45, "status", "known", "__op", "u", "__ts_ms", 1L)), state);
    assertEquals(List.of(row("id", 42, "status", "shipped")), CurrentState.collapse(log.subList(0, 5), List.of("id"), false));
    assertEquals(8, CurrentState.collapse(log, List.of(), true).size(), "without a key only the delete is dropped");
  }

  private static Map<String, Object> change(int id, String status, String op, Long ts, int partition, long offset) {
    return row("id", id, "status", status, "__op", op, "__deleted", op.equals("d"), "__ts_ms", ts,
        "__partition", partition, "__offset", offset, "__ingest_date", null);
  }
}

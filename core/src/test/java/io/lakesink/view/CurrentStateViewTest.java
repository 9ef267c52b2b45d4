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
  void keyedViewRanksThenFiltersDeletesAndWhatATruncateRanksAbove() {
    assertEquals(
        """
        CREATE OR REPLACE VIEW `main`.`bronze`.`orders` AS
        SELECT * EXCEPT (`__deleted`, `__partition`, `__offset`, `__ingest_date`, `__rank_ts_ms`) FROM (
          SELECT * FROM (
            SELECT *, CASE WHEN `__op` <=> 't' THEN `__ts_ms` ELSE MAX(`__ts_ms`) OVER (PARTITION BY `id`, `region`, `__partition` ORDER BY `__offset` ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) END AS `__rank_ts_ms`
            FROM `main`.`bronze`.`orders_APPEND`
          ) AS `__ranked`
          QUALIFY ROW_NUMBER() OVER (
            PARTITION BY `id`, `region`
            ORDER BY `__rank_ts_ms` DESC NULLS LAST, `__partition` DESC NULLS LAST, `__offset` DESC NULLS LAST
          ) = 1
        ) AS `__change`
        WHERE NOT `__change`.`__deleted`
          AND NOT EXISTS (
            SELECT 1 FROM `main`.`bronze`.`orders_APPEND` AS `__truncate`
            WHERE `__truncate`.`__op` = 't'
              AND ((`__truncate`.`__ts_ms` > `__change`.`__rank_ts_ms` OR `__truncate`.`__ts_ms` IS NOT NULL AND `__change`.`__rank_ts_ms` IS NULL)
                OR `__truncate`.`__ts_ms` <=> `__change`.`__rank_ts_ms` AND ((`__truncate`.`__partition` > `__change`.`__partition` OR `__truncate`.`__partition` IS NOT NULL AND `__change`.`__partition` IS NULL)
                  OR `__truncate`.`__partition` <=> `__change`.`__partition` AND (`__truncate`.`__offset` > `__change`.`__offset` OR `__truncate`.`__offset` IS NOT NULL AND `__change`.`__offset` IS NULL))));""",
        CurrentStateView.sql(List.of("main", "bronze"), "orders", List.of("id", "region"), true));
  }

  @Test
  void withoutKeyOnlyDeletedAndTruncatedEventsAreDroppedAndMetadataCanBeHidden() {
    assertEquals(
        """
        CREATE OR REPLACE VIEW `events` AS
        SELECT * EXCEPT (`__op`, `__ts_ms`, `__deleted`, `__partition`, `__offset`, `__ingest_date`) FROM `events_APPEND` AS `__change`
        WHERE NOT `__change`.`__deleted`
          AND NOT EXISTS (
            SELECT 1 FROM `events_APPEND` AS `__truncate`
            WHERE `__truncate`.`__op` = 't'
              AND ((`__truncate`.`__ts_ms` > `__change`.`__ts_ms` OR `__truncate`.`__ts_ms` IS NOT NULL AND `__change`.`__ts_ms` IS NULL)
                OR `__truncate`.`__ts_ms` <=> `__change`.`__ts_ms` AND ((`__truncate`.`__partition` > `__change`.`__partition` OR `__truncate`.`__partition` IS NOT NULL AND `__change`.`__partition` IS NULL)
                  OR `__truncate`.`__partition` <=> `__change`.`__partition` AND (`__truncate`.`__offset` > `__change`.`__offset` OR `__truncate`.`__offset` IS NOT NULL AND `__change`.`__offset` IS NULL))));""",
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
    // Ties on __ts_ms: the higher partition, then the higher offset wins; NULL ranks last, across partitions.
    log.add(change(44, "first", "u", 5L, 0, 9));
    log.add(change(44, "second", "u", 5L, 1, 1));
    log.add(change(45, "late", "u", null, 1, 50));
    log.add(change(45, "known", "u", 1L, 0, 10));
    // A snapshot row stamped when it was read, then a change of the same partition stamped
    // earlier: the change is newer (Kafka's order within a partition is the source's), also
    // with an unknown time; across partitions the source time still decides.
    log.add(change(46, "snapshot", "r", 100L, 0, 20));
    log.add(change(46, "changed", "u", 90L, 0, 21));
    log.add(change(47, "snapshot", "r", 100L, 0, 22));
    log.add(change(47, "unknown time", "u", null, 0, 23));
    log.add(change(48, "newer", "u", 100L, 0, 24));
    log.add(change(48, "older", "u", 90L, 1, 60));
    List<Map<String, Object>> state = CurrentState.collapse(log, List.of("id"), true);
    state.sort((a, b) -> Integer.compare((Integer) a.get("id"), (Integer) b.get("id")));
    assertEquals(List.of(
        row("id", 42, "status", "shipped", "__op", "u", "__ts_ms", 1760000120000L),
        row("id", 44, "status", "second", "__op", "u", "__ts_ms", 5L),
        row("id", 45, "status", "known", "__op", "u", "__ts_ms", 1L),
        row("id", 46, "status", "changed", "__op", "u", "__ts_ms", 90L),
        row("id", 47, "status", "unknown time", "__op", "u", "__ts_ms", null),
        row("id", 48, "status", "newer", "__op", "u", "__ts_ms", 100L)), state);
    assertEquals(List.of(row("id", 42, "status", "shipped")), CurrentState.collapse(log.subList(0, 5), List.of("id"), false));
    assertEquals(14, CurrentState.collapse(log, List.of(), true).size(), "without a key only the delete is dropped");
  }

  /** Inserts, a truncate, more inserts: only what came after the truncate is the current state. */
  @Test
  void aTruncateHidesEveryChangeRankedBelowIt() {
    List<Map<String, Object>> log = new ArrayList<>();
    for (int id = 1; id <= 8; id++) {
      log.add(change(id, "before", "c", 1000L + id, 0, id));
    }
    log.add(change(3, "updated", "u", 1010L, 0, 9));
    log.add(truncate(2000L, 0, 10));
    log.add(change(3, "again", "c", 2001L, 0, 11));
    log.add(change(101, "new", "c", 2002L, 0, 12));
    log.add(change(102, "new", "c", 2003L, 0, 13));
    log.add(change(101, "new", "d", 2004L, 0, 14));
    log.add(change(101, "back", "c", 2005L, 0, 15));
    assertEquals(List.of(3, 101, 102), ids(CurrentState.collapse(log, List.of("id"), false)));
    assertEquals(List.of(3, 101, 101, 102), ids(CurrentState.collapse(log, List.of(), false)),
        "without a key: every change after the truncate that is not a delete");
    assertEquals(List.of(), CurrentState.collapse(log.subList(0, 10), List.of("id"), false), "the truncate alone: nothing");
  }

  /**
   * The ordering rule across partitions: a truncate ranks as every change does (__ts_ms, then
   * __partition, then __offset). A change of another partition with an earlier __ts_ms is older
   * than the truncate, even when read after it, and stays hidden; a later one shows.
   */
  @Test
  void aTruncateRanksAcrossPartitionsLikeEveryChange() {
    List<Map<String, Object>> log = new ArrayList<>();
    log.add(change(1, "p1 before", "c", 1000L, 1, 0));
    log.add(truncate(2000L, 0, 5));
    log.add(change(2, "p1 earlier, read after", "c", 1999L, 1, 1));
    log.add(change(3, "p1 same time, higher partition", "c", 2000L, 1, 2));
    log.add(change(4, "p0 same time, lower offset", "c", 2000L, 0, 4));
    log.add(change(5, "no time", "c", null, 1, 3));
    log.add(change(6, "p1 later", "c", 2001L, 1, 4));
    assertEquals(List.of(3, 6), ids(CurrentState.collapse(log, List.of("id"), false)));
    List<Map<String, Object>> twoTruncates = new ArrayList<>(log);
    twoTruncates.add(truncate(2000L, 1, 9)); // ranks above key 3's change, below key 6's
    assertEquals(List.of(6), ids(CurrentState.collapse(twoTruncates, List.of("id"), false)), "the latest truncate counts");
  }

  private static List<Integer> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> (Integer) r.get("id")).sorted().toList();
  }

  /** A truncate as the changelog records it: no source values, deleted, __op 't'. */
  private static Map<String, Object> truncate(Long ts, int partition, long offset) {
    return row("id", null, "status", null, "__op", "t", "__deleted", true, "__ts_ms", ts,
        "__partition", partition, "__offset", offset, "__ingest_date", null);
  }

  private static Map<String, Object> change(int id, String status, String op, Long ts, int partition, long offset) {
    return row("id", id, "status", status, "__op", op, "__deleted", op.equals("d"), "__ts_ms", ts,
        "__partition", partition, "__offset", offset, "__ingest_date", null);
  }
}

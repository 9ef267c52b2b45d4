package io.lakesink.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CurrentStateDefinitionTest {
  private static final List<String> NS = List.of("main", "bronze");

  private static CurrentStateSpec spec(List<String> key, CurrentStateKind kind, Duration lag) {
    return new CurrentStateSpec("orders", key, true, kind, new CurrentStateOptions(true, null, lag));
  }

  @Test
  void theStatementCarriesTheMarkerTheChangelogAndTheQuery() {
    CurrentStateDefinition d = spec(List.of("id"), CurrentStateKind.VIEW, Duration.ofHours(1))
        .definition(NS, List.of("id", "status"), List.of());
    String sql = d.statement();
    assertTrue(sql.startsWith("CREATE OR REPLACE VIEW `main`.`bronze`.`orders`\nCOMMENT 'lakesink-current-state:v1"
        + " changelog=`main`.`bronze`.`orders_APPEND` fingerprint=" + d.fingerprint() + " "), sql);
    assertTrue(sql.endsWith("AS\n" + CurrentStateView.query("`main`.`bronze`.`orders_APPEND`", List.of("id"), true)), sql);
    assertTrue(CurrentStateDefinition.ours(d.comment()));
    assertFalse(CurrentStateDefinition.ours("orders, current state"));
    assertEquals(CurrentStateView.sql(NS, "orders", List.of("id"), true), d.manualStatement(),
        "without a warehouse the logged statement is the one printed at start");
  }

  @Test
  void theFingerprintFollowsColumnsKeyAndSchedule() {
    CurrentStateSpec s = spec(List.of("id"), CurrentStateKind.VIEW, Duration.ofHours(1));
    String base = s.definition(NS, List.of("id", "status"), List.of()).fingerprint();
    assertEquals(base, s.definition(NS, List.of("id", "status"), List.of()).fingerprint());
    assertNotEquals(base, s.definition(NS, List.of("id", "status", "coupon"), List.of()).fingerprint());
    assertNotEquals(base, spec(List.of("id", "status"), CurrentStateKind.VIEW, Duration.ofHours(1))
        .definition(NS, List.of("id", "status"), List.of()).fingerprint());
    CurrentStateSpec mv = spec(List.of("id"), CurrentStateKind.MATERIALIZED_VIEW, Duration.ofHours(1));
    assertNotEquals(mv.definition(NS, List.of("id"), List.of()).fingerprint(),
        spec(List.of("id"), CurrentStateKind.MATERIALIZED_VIEW, Duration.ofHours(2)).definition(NS, List.of("id"), List.of()).fingerprint());
  }

  @Test
  void withoutAPrimaryKeyTheRecordKeyIsTheViewsKey() {
    CurrentStateSpec keyless = spec(List.of(), CurrentStateKind.VIEW, Duration.ofHours(1));
    assertTrue(keyless.definition(NS, List.of("id"), List.of("id")).statement().contains("PARTITION BY `id`"));
    assertFalse(keyless.definition(NS, List.of("id"), List.of()).statement().contains("PARTITION BY"));
  }

  @Test
  void materializedViewSchedules() {
    assertEquals("SCHEDULE EVERY 1 HOURS", RefreshSchedule.clause(Duration.ofMinutes(60)));
    assertEquals("SCHEDULE EVERY 3 HOURS", RefreshSchedule.clause(Duration.ofHours(3)));
    assertEquals("SCHEDULE CRON '0 0/15 * * * ?' AT TIME ZONE 'UTC'", RefreshSchedule.clause(Duration.ofMinutes(15)));
    assertEquals("SCHEDULE CRON '0 0/45 * * * ?' AT TIME ZONE 'UTC'", RefreshSchedule.clause(Duration.ofMinutes(45)));
    assertFalse(RefreshSchedule.representable(Duration.ofMinutes(90)));
    assertFalse(RefreshSchedule.representable(Duration.ofSeconds(90)));
    assertThrows(IllegalArgumentException.class, () -> RefreshSchedule.clause(Duration.ofMinutes(90)));
    String sql = spec(List.of("id"), CurrentStateKind.MATERIALIZED_VIEW, Duration.ofMinutes(15)).definition(NS, List.of("id"), List.of())
        .statement();
    assertTrue(sql.contains("CREATE OR REPLACE MATERIALIZED VIEW `main`.`bronze`.`orders`\nCOMMENT '"), sql);
    assertTrue(sql.contains("'\nSCHEDULE CRON '0 0/15 * * * ?' AT TIME ZONE 'UTC'\nAS\n"), sql);
  }

  @Test
  void theCommentLiteralEscapesQuotes() {
    assertEquals("it\\'s a \\\\ path", CurrentStateDefinition.literal("it's a \\ path"));
  }
}

package io.lakesink.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.testing.ShiftableClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The current-state build's retry schedule: 1, 5, 15, then every 60 minutes; 1 h after a refusal. */
class CatalogSyncScheduleTest {
  private final ShiftableClock clock = new ShiftableClock();
  private final Deque<CurrentStateResult> answers = new ArrayDeque<>();
  private final List<String> calls = new ArrayList<>();
  private final TableCatalog catalog = new TableCatalog() {
    @Override
    public void register(CatalogTable table) {
      calls.add("register " + table.columns().size());
    }

    @Override
    public CurrentStateResult buildCurrentState(CatalogTable changelog) {
      calls.add("build " + changelog.columns().size());
      return answers.isEmpty() ? CurrentStateResult.UP_TO_DATE : answers.poll();
    }

    @Override
    public String describe() {
      return "test catalog";
    }
  };
  private final CatalogSync sync = new CatalogSync(catalog, "orders_APPEND", clock, Runnable::run);

  private static CatalogTable table(int columns) {
    List<Column> cs = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      cs.add(new Column("c" + i, ColumnType.STRING));
    }
    return new CatalogTable("orders_APPEND", "file:/t/orders_APPEND", cs, List.of());
  }

  private CatalogSync.Outcome attempt(CatalogTable t) {
    sync.tableChanged(t);
    return sync.outcome().orElseThrow();
  }

  private long builds() {
    return calls.stream().filter(c -> c.startsWith("build")).count();
  }

  @Test
  void aFailedBuildIsRetriedAfterOneFiveFifteenThenEverySixtyMinutes() {
    for (int i = 0; i < 5; i++) {
      answers.add(new CurrentStateResult.Failed("SQL error", false));
    }
    CatalogSync.Outcome first = attempt(table(2));
    CatalogSync.Outcome.Problem p = assertInstanceOf(CatalogSync.Outcome.Problem.class, first);
    assertTrue(p.reason().contains("SQL error (attempt 1 failed; next attempt at "), p.reason());
    List<Duration> waits = List.of(Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(60),
        Duration.ofMinutes(60));
    for (int i = 0; i < waits.size(); i++) {
      long before = builds();
      clock.advance(waits.get(i).minusSeconds(5));
      assertInstanceOf(CatalogSync.Outcome.Problem.class, attempt(table(2)));
      assertEquals(before, builds(), "not before " + waits.get(i) + " (wait " + (i + 1) + ")");
      clock.advance(Duration.ofSeconds(5));
      CatalogSync.Outcome o = attempt(table(2));
      assertEquals(before + 1, builds(), "after " + waits.get(i));
      if (i < waits.size() - 1) {
        assertInstanceOf(CatalogSync.Outcome.Problem.class, o);
      } else {
        assertInstanceOf(CatalogSync.Outcome.InSync.class, o, "the sixth attempt builds it");
      }
    }
    assertEquals(1, calls.stream().filter(c -> c.startsWith("register")).count(), "the registration itself was fine");
  }

  @Test
  void aRefusingWarehouseIsAskedAgainOnlyAfterAnHourEvenForANewShape() {
    answers.add(new CurrentStateResult.Failed("warehouse stopped", true));
    CatalogSync.Outcome.Problem p = assertInstanceOf(CatalogSync.Outcome.Problem.class, attempt(table(2)));
    assertTrue(p.reason().startsWith("current-state object not built: warehouse stopped (attempt 1 failed; next attempt at "
        + clock.instant().plus(Duration.ofHours(1)).toString().substring(0, 16)), p.reason());
    clock.advance(Duration.ofMinutes(59));
    assertInstanceOf(CatalogSync.Outcome.Problem.class, attempt(table(3)));
    assertEquals(1, builds(), "a new column does not jump the schedule");
    assertEquals(2, calls.stream().filter(c -> c.startsWith("register")).count(), "but is registered at once");
    clock.advance(Duration.ofMinutes(1));
    assertInstanceOf(CatalogSync.Outcome.InSync.class, attempt(table(3)));
    assertEquals(List.of("register 2", "build 2", "register 3", "build 3"), calls);
  }

  @Test
  void aBuiltShapeIsNotBuiltAgainButANewShapeIs() {
    assertInstanceOf(CatalogSync.Outcome.InSync.class, attempt(table(2)));
    assertInstanceOf(CatalogSync.Outcome.InSync.class, attempt(table(2)));
    assertInstanceOf(CatalogSync.Outcome.InSync.class, attempt(table(3)));
    assertEquals(List.of("register 2", "build 2", "register 3", "build 3"), calls);
  }
}

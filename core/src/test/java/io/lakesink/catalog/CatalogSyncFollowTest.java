package io.lakesink.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.RetryableException;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.testing.ShiftableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * A catalog that follows commits (an Iceberg REST catalog, whose pointer must advance with the
 * Delta log) hears of them at most once per its interval, the commits held back meanwhile reach
 * it once the interval is over or when the worker stops, and a failure degrades the table
 * (a problem, never a refusal) and is tried again with the next commits.
 */
class CatalogSyncFollowTest {
  private final ShiftableClock clock = new ShiftableClock();
  private final Executor direct = Runnable::run; // each attempt runs and ends at once: no timing involved
  private final List<String> calls = new ArrayList<>();
  private RuntimeException failNext;

  private final TableCatalog catalog = new TableCatalog() {
    @Override
    public void register(CatalogTable table) {
      calls.add("register");
    }

    @Override
    public Optional<Duration> followsCommits() {
      return Optional.of(Duration.ofSeconds(5));
    }

    @Override
    public void committed(CatalogTable table) {
      if (failNext != null) {
        RuntimeException e = failNext;
        failNext = null;
        throw e;
      }
      calls.add("committed " + table.columns().size());
    }

    @Override
    public String describe() {
      return "following catalog";
    }
  };

  private static CatalogTable table(int columns) {
    List<Column> cs = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      cs.add(new Column("c" + i, ColumnType.STRING));
    }
    return new CatalogTable("orders_APPEND", "file:/t/orders_APPEND", cs, List.of());
  }

  @Test
  void commitsReachTheCatalogAtMostOncePerIntervalAndTheLastOnesAtStop() {
    CatalogSync sync = new CatalogSync(catalog, "orders_APPEND", clock, direct);
    List<CatalogSync.Outcome> outcomes = new ArrayList<>();
    sync.tableChanged(table(1)); // start-up: registered (which brings the catalog to the latest commit)
    sync.outcome().ifPresent(outcomes::add);
    assertEquals(List.of("register"), calls);

    clock.advance(Duration.ofSeconds(1));
    sync.tableChanged(table(1)); // a commit within the interval: held back
    sync.tableChanged(table(1));
    sync.poll();
    assertEquals(List.of("register"), calls);

    clock.advance(Duration.ofSeconds(4));
    sync.poll(); // the interval is over: the held-back commits reach the catalog, once
    sync.outcome().ifPresent(outcomes::add);
    sync.poll();
    assertEquals(List.of("register", "committed 1"), calls);

    clock.advance(Duration.ofSeconds(1));
    sync.tableChanged(table(1)); // the last commit before the worker stops
    assertEquals(List.of("register", "committed 1"), calls);
    sync.await(Duration.ofMinutes(1), outcomes::add);
    assertEquals(List.of("register", "committed 1", "committed 1"), calls, "the stop does not wait for the interval");
    outcomes.forEach(o -> assertInstanceOf(CatalogSync.Outcome.InSync.class, o));
  }

  @Test
  void aFailingFollowDegradesTheTableAndIsTriedAgainWithTheNextCommits() {
    CatalogSync sync = new CatalogSync(catalog, "orders_APPEND", clock, direct);
    sync.tableChanged(table(1));
    sync.outcome();
    clock.advance(Duration.ofSeconds(5));
    failNext = new RetryableException("catalog down", null);
    sync.tableChanged(table(1));
    CatalogSync.Outcome failed = sync.outcome().orElseThrow();
    CatalogSync.Outcome.Problem problem = assertInstanceOf(CatalogSync.Outcome.Problem.class, failed);
    assertTrue(problem.reason().contains("catalog down"), problem.reason());

    clock.advance(Duration.ofSeconds(5));
    sync.tableChanged(table(1));
    assertInstanceOf(CatalogSync.Outcome.InSync.class, sync.outcome().orElseThrow());
    assertEquals(List.of("register", "committed 1"), calls);
  }
}

package io.lakesink.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Waiting for the catalog before a worker stops: a shape that arrived while a registration ran
 * (a new column committed during the start-up registration) is registered and built too.
 */
class CatalogSyncAwaitTest {
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final TableCatalog catalog = new TableCatalog() {
    @Override
    public void register(CatalogTable table) {
      if (table.columns().size() == 1) {
        await(release); // the start-up registration is slow
      }
      calls.add("register " + table.columns().size());
    }

    @Override
    public CurrentStateResult buildCurrentState(CatalogTable changelog) {
      calls.add("build " + changelog.columns().size());
      return CurrentStateResult.UP_TO_DATE;
    }

    @Override
    public String describe() {
      return "test catalog";
    }
  };

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static CatalogTable table(int columns) {
    List<Column> cs = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      cs.add(new Column("c" + i, ColumnType.STRING));
    }
    return new CatalogTable("orders_APPEND", "file:/t/orders_APPEND", cs, List.of());
  }

  @Test
  void theShapeQueuedBehindTheAttemptInFlightIsSyncedBeforeAwaitReturns() {
    CatalogSync sync = new CatalogSync(catalog, "orders_APPEND", Clock.systemUTC(), executor);
    sync.tableChanged(table(1)); // in flight, held by the catalog
    sync.tableChanged(table(2)); // queued behind it
    release.countDown();
    List<CatalogSync.Outcome> outcomes = new ArrayList<>();
    sync.await(Duration.ofMinutes(1), outcomes::add);
    assertEquals(List.of("register 1", "build 1", "register 2", "build 2"), calls);
    assertEquals(2, outcomes.size(), outcomes.toString());
    outcomes.forEach(o -> assertInstanceOf(CatalogSync.Outcome.InSync.class, o));
  }

  @Test
  void awaitGivesUpAtTheTimeoutAndReportsNothingUnfinished() {
    CatalogSync sync = new CatalogSync(catalog, "orders_APPEND", Clock.systemUTC(), executor);
    sync.tableChanged(table(1)); // held until released
    List<CatalogSync.Outcome> outcomes = new ArrayList<>();
    sync.await(Duration.ofMillis(50), outcomes::add);
    assertEquals(List.of(), outcomes);
    release.countDown();
    sync.await(Duration.ofMinutes(1), outcomes::add);
    assertEquals(1, outcomes.size());
  }
}

package io.lakesink.catalog.unity;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import io.lakesink.view.CurrentStateSpec;
import java.util.Random;

/** A fake workspace, a test clock, a recording sleeper, and a catalog wired to all three. */
final class Harness implements AutoCloseable {
  static final String LOCATION = "abfss://lake@myaccount.dfs.core.windows.net/lakesink/orders_APPEND";

  final FakeDatabricks fake;
  final TestClock clock = new TestClock();
  final RecordingSleeper sleeper = new RecordingSleeper(clock);

  private Harness(FakeDatabricks fake) {
    this.fake = fake;
  }

  static Harness start() throws IOException {
    return new Harness(FakeDatabricks.start());
  }

  static Harness start(FakeDatabricks.Flavor flavor) throws IOException {
    return new Harness(FakeDatabricks.start(flavor));
  }

  ClientEnvironment environment() {
    return new ClientEnvironment(sleeper, clock, new Random(42), Duration.ofSeconds(10));
  }

  UnitySettings settings() {
    return UnitySettings.servicePrincipal(fake.url(), FakeDatabricks.CLIENT_ID, FakeDatabricks.CLIENT_SECRET, "main", "bronze");
  }

  UnityCatalog catalog() {
    return UnityCatalog.create(settings(), environment());
  }

  UnityCatalog catalog(UnitySettings settings) {
    return UnityCatalog.create(settings, environment());
  }

  /** A catalog with the fake's warehouse building {@code orders}' current state as {@code spec} says. */
  UnityCatalog catalog(CurrentStateKind kind, CurrentStateSpec spec) {
    return UnityCatalog.create(settings().withWarehouse(FakeDatabricks.WAREHOUSE_ID, kind), environment(),
        Map.of(spec.changelog(), spec));
  }

  /** orders keyed on id, metadata columns kept, built in the catalog's schema. */
  static CurrentStateSpec ordersSpec(CurrentStateKind kind) {
    return new CurrentStateSpec("orders", List.of("id"), true, kind, CurrentStateOptions.DEFAULT);
  }

  /** An orders changelog: every lakesink type, partitioned by __ingest_date. */
  static CatalogTable orders(String location, Column... extra) {
    List<Column> columns =
        new ArrayList<>(
            List.of(
                new Column("id", ColumnType.BIGINT),
                new Column("amount", ColumnType.decimal(10, 2)),
                new Column("quantity", ColumnType.INT),
                new Column("note", ColumnType.STRING),
                new Column("price", ColumnType.DOUBLE),
                new Column("ratio", ColumnType.FLOAT),
                new Column("paid", ColumnType.BOOLEAN),
                new Column("ordered_on", ColumnType.DATE),
                new Column("updated_at", ColumnType.TIMESTAMP),
                new Column("__ingest_date", ColumnType.DATE)));
    columns.addAll(List.of(extra));
    return new CatalogTable("orders_APPEND", location, columns, List.of("__ingest_date"));
  }

  static CatalogTable orders(Column... extra) {
    return orders(LOCATION, extra);
  }

  @Override
  public void close() {
    fake.close();
  }
}

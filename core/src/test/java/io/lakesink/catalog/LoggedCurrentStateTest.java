package io.lakesink.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import io.lakesink.view.CurrentStateSpec;
import io.lakesink.view.CurrentStateView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without a warehouse the statement is logged again whenever it, or the changelog's columns, change. */
class LoggedCurrentStateTest {
  @Test
  void loggedAgainOnANewColumnAndWhenTheRecordKeyBecomesKnown() {
    List<String> lines = new ArrayList<>();
    CurrentStateSpec spec = new CurrentStateSpec("orders", List.of(), true, CurrentStateKind.VIEW, CurrentStateOptions.DEFAULT);
    LoggedCurrentState logged = new LoggedCurrentState(Map.of("orders_APPEND", spec), List.of(), lines::add);
    CatalogTable two = table(List.of(), "id", "status");
    assertEquals(CurrentStateResult.NOT_MANAGED, logged.buildCurrentState(two));
    logged.buildCurrentState(two);
    assertEquals(List.of(), lines, "the start already logged it");
    logged.buildCurrentState(table(List.of(), "id", "status", "coupon"));
    assertEquals(1, lines.size());
    assertTrue(lines.get(0).contains("columns now [id, status, coupon]"), lines.get(0));
    assertTrue(lines.get(0).endsWith("CREATE OR REPLACE VIEW `orders` AS\n"
        + CurrentStateView.query("`orders_APPEND`", List.of(), true) + ";"), lines.get(0));
    logged.buildCurrentState(table(List.of("id"), "id", "status", "coupon"));
    assertEquals(2, lines.size());
    assertTrue(lines.get(1).contains("PARTITION BY `id`"), "the record key deduplicates, as MERGE does: " + lines.get(1));
  }

  private static CatalogTable table(List<String> recordKey, String... columns) {
    List<Column> cs = new ArrayList<>();
    for (String c : columns) {
      cs.add(new Column(c, ColumnType.STRING));
    }
    return new CatalogTable("orders_APPEND", "file:/t", cs, List.of(), recordKey);
  }
}

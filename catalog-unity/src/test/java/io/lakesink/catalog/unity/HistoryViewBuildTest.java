package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.CurrentStateResult;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import io.lakesink.view.CurrentStateSpec;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The history view built on the warehouse ({@code current_state.history}), beside a view or a kept table. */
class HistoryViewBuildTest {
  private static final String HISTORY = "main.bronze.orders_HISTORY";
  private static final String CURRENT = "main.bronze.orders";
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    h = Harness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  static CurrentStateSpec spec(CurrentStateKind kind) {
    return new CurrentStateSpec("orders", List.of("id"), true, kind,
        new CurrentStateOptions(true, null, CurrentStateOptions.DEFAULT_REFRESH_LAG, kind, true));
  }

  @Test
  void besideAKeptTableOnlyTheHistoryViewIsBuilt() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, spec(CurrentStateKind.TABLE));
    catalog.register(Harness.orders());
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()));
    assertNull(h.fake.table(CURRENT), "the kept table takes that name, registered as a table");
    JsonNode history = h.fake.table(HISTORY);
    assertEquals("VIEW", history.path("table_type").asText());
    assertTrue(history.path("comment").asText().startsWith("lakesink-history:v1 changelog=`main`.`bronze`.`orders_APPEND`"),
        history.path("comment").asText());
    assertTrue(history.path("view_definition").asText().contains("AS `__is_current`"));
    assertEquals(1, h.fake.statements().size(), h.fake.statements().toString());

    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()), "built already: nothing run");
    assertEquals(1, h.fake.statements().size());
    catalog.buildCurrentState(Harness.orders(new Column("note2", ColumnType.STRING)));
    assertEquals(2, h.fake.statements().size(), "a new column replaces it: " + h.fake.statements());
  }

  @Test
  void besideAViewBoth() {
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, spec(CurrentStateKind.VIEW));
    catalog.register(Harness.orders());
    assertEquals(CurrentStateResult.UP_TO_DATE, catalog.buildCurrentState(Harness.orders()));
    assertEquals("VIEW", h.fake.table(CURRENT).path("table_type").asText());
    assertEquals("VIEW", h.fake.table(HISTORY).path("table_type").asText());
  }

  @Test
  void anotherOwnersObjectUnderTheNameStays() {
    h.fake.putTable(HISTORY, "VIEW", null, "id", "bigint");
    UnityCatalog catalog = h.catalog(CurrentStateKind.VIEW, spec(CurrentStateKind.TABLE));
    catalog.register(Harness.orders());
    CurrentStateResult.Failed f = assertInstanceOf(CurrentStateResult.Failed.class, catalog.buildCurrentState(Harness.orders()));
    assertTrue(f.reason().contains(HISTORY) && f.reason().contains("lakesink-history:v1"), f.reason());
    assertTrue(f.reason().contains("the history view is not built") && !f.reason().contains("current-state"),
        "names the object it would build: " + f.reason());
    assertEquals(List.of(), h.fake.statements());
  }
}

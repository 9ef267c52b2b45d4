package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.UnitySettings;
import io.lakesink.error.ConfigurationException;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** catalog.warehouse_id, catalog.current_state and subscriptions[].current_state (issue 12). */
class CurrentStateConfigTest {
  static final String UNITY = "catalog: {type: unity, workspace_url: \"https://adb-1.2.azuredatabricks.net\","
      + " client_id: abc, client_secret: s3cret-oauth, catalog: main, schema: bronze";

  final ConfigLoader loader = new ConfigLoader(Map.<String, String>of()::get);

  @Test
  void warehouseAndKindAreReadByTheUnityModule() {
    WorkerConfig c = loader.parse(ConfigLoaderTest.MINIMAL + UNITY + ", warehouse_id: 1a2b3c4d5e6f7a8b, current_state: materialized_view}\n", "test");
    UnitySettings unity = UnitySettings.fromConfig(c.catalog().settings());
    assertEquals("1a2b3c4d5e6f7a8b", unity.warehouseId());
    assertEquals(CurrentStateKind.MATERIALIZED_VIEW, unity.currentState());
    assertEquals(CurrentStateKind.MATERIALIZED_VIEW, c.catalog().currentStateKind());
  }

  @Test
  void defaultsAreAViewWithoutAWarehouseBuiltInTheCatalogsSchema() {
    WorkerConfig c = loader.parse(ConfigLoaderTest.MINIMAL + UNITY + "}\n", "test");
    UnitySettings unity = UnitySettings.fromConfig(c.catalog().settings());
    assertNull(unity.warehouseId());
    assertFalse(unity.hasWarehouse());
    assertEquals(CurrentStateKind.VIEW, unity.currentState());
    assertEquals(CurrentStateOptions.DEFAULT, c.catalog().currentState("orders"));
  }

  @Test
  void aSubscriptionsCurrentStateSectionIsRead() {
    WorkerConfig c = loader.parse(sub("current_state: {build: false, schema: silver, refresh_lag: 15m}")
        + UNITY + ", current_state: materialized_view}\n", "test");
    assertEquals(new CurrentStateOptions(false, "silver", Duration.ofMinutes(15)), c.catalog().currentState("orders"));
    c = loader.parse(sub("current_state: {refresh_lag: 2h}") + UNITY + ", current_state: materialized_view}\n", "test");
    assertEquals(new CurrentStateOptions(true, null, Duration.ofHours(2)), c.catalog().currentState("orders"));
  }

  @Test
  void wrongValuesAreRefusedWithTheirPath() {
    assertMessage(ConfigLoaderTest.MINIMAL + UNITY + ", current_state: materialised_view}\n",
        "'catalog.current_state' is 'materialised_view': use view, materialized_view or table");
    assertMessage(ConfigLoaderTest.MINIMAL + UNITY + ", warehouse_id: \"../../x\"}\n", "'catalog.warehouse_id' is '../../x'");
    assertMessage(sub("current_state: {refresh_lag: 90m}") + UNITY + ", current_state: materialized_view}\n",
        "'subscriptions[0].current_state.refresh_lag' is '90m', which no Databricks refresh schedule keeps: use whole minutes"
            + " under an hour (1m to 59m) or whole hours");
    assertMessage(sub("current_state: {refresh_lag: 30}") + UNITY + ", current_state: materialized_view}\n",
        "'subscriptions[0].current_state.refresh_lag' is '30'");
    assertMessage(sub("current_state: {refresh_lag: 30m}") + UNITY + "}\n",
        "'subscriptions[0].current_state.refresh_lag' only applies to materialized views: remove it, or set catalog.current_state: materialized_view");
    assertMessage(sub("current_state: {schema: silver}"),
        "'subscriptions[0].current_state.schema' only applies with catalog.type: unity");
    assertMessage(sub("current_state: {schema: a.b}") + UNITY + "}\n", "'subscriptions[0].current_state.schema' is 'a.b'");
    assertMessage(sub("current_state: {biuld: false}"), "'subscriptions[0].current_state.biuld' is not a known key");
    assertMessage(sub("current_state: {build: maybe}"), "'subscriptions[0].current_state.build' is 'maybe': use true or false");
    assertMessage(ConfigLoaderTest.MINIMAL + "catalog: {warehouse_id: abc}\n",
        "'catalog.warehouse_id' only applies to catalog type unity");
  }

  @Test
  void aTableIsAskedForPerSubscriptionOrForAll() {
    WorkerConfig c = loader.parse(sub("current_state: {object: table}"), "test");
    assertEquals(CurrentStateKind.TABLE, c.catalog().currentStateKind("orders"));
    assertEquals(CurrentStateKind.VIEW, c.catalog().currentStateKind("other"), "the default stays a view");
    c = loader.parse(ConfigLoaderTest.MINIMAL + UNITY + ", current_state: table}\n", "test");
    assertEquals(CurrentStateKind.TABLE, c.catalog().currentStateKind("orders"));
    assertEquals(CurrentStateKind.TABLE, UnitySettings.fromConfig(c.catalog().settings()).currentState());
    c = loader.parse(ConfigLoaderTest.MINIMAL + "catalog: {current_state: table}\n", "test");
    assertEquals(CurrentStateKind.TABLE, c.catalog().currentStateKind("orders"), "no catalog needed for a kept table");
    assertEquals("none", c.catalog().type());
    assertMessage(ConfigLoaderTest.MINIMAL + "catalog: {current_state: materialized_view}\n",
        "'catalog.current_state' only applies to catalog type unity");
    c = loader.parse(sub("current_state: {object: view}") + UNITY + ", current_state: table}\n", "test");
    assertEquals(CurrentStateKind.VIEW, c.catalog().currentStateKind("orders"), "a subscription's own object wins");
    c = loader.parse(sub("current_state: {object: materialized_view, refresh_lag: 30m}") + UNITY + "}\n", "test");
    assertEquals(CurrentStateKind.MATERIALIZED_VIEW, c.catalog().currentStateKind("orders"));
    assertEquals(Duration.ofMinutes(30), c.catalog().currentState("orders").refreshLag());
  }

  @Test
  void theHistoryViewIsBuiltOnlyWhenAskedFor() {
    assertFalse(loader.parse(sub("current_state: {object: table}"), "test").catalog().currentState("orders").history());
    assertTrue(loader.parse(sub("current_state: {object: table, history: true}"), "test").catalog().currentState("orders")
        .history());
    assertMessage(sub("current_state: {history: sometimes}"), "'subscriptions[0].current_state.history' is 'sometimes'");
  }

  @Test
  void wrongObjectsAreRefusedWithTheirPath() {
    assertMessage(sub("current_state: {object: tabel}"),
        "'subscriptions[0].current_state.object' is 'tabel': use view, materialized_view or table");
    assertMessage(sub("current_state: {object: materialized_view}"),
        "'subscriptions[0].current_state.object' is materialized_view, which only Databricks builds");
    assertMessage(sub("current_state: {object: table, refresh_lag: 30m}") + UNITY + ", current_state: materialized_view}\n",
        "'subscriptions[0].current_state.refresh_lag' only applies to materialized views");
  }

  @Test
  void theWarehouseCanBeSetFromTheEnvironment() {
    ConfigLoader env = new ConfigLoader(Map.of("LAKESINK_CATALOG_WAREHOUSE_ID", "abc123")::get);
    WorkerConfig c = env.parse(ConfigLoaderTest.MINIMAL + UNITY + "}\n", "test");
    assertEquals("abc123", c.catalog().settings().get("warehouse_id"));
  }

  private static String sub(String extra) {
    return ConfigLoaderTest.MINIMAL.replace("table: orders}", "table: orders, " + extra + "}");
  }

  private void assertMessage(String yaml, String expected) {
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> {
      WorkerConfig c = loader.parse(yaml, "test");
      if (c.catalog().type().equals("unity")) {
        UnitySettings.fromConfig(c.catalog().settings()); // what the worker does next at start
      }
    });
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}

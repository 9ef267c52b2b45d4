package io.lakesink.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code catalogs:} beside the {@code catalog:} block (named {@code default}), and a subscription's {@code catalog:}. */
class NamedCatalogsConfigTest {
  static final String BASE = """
      kafka: {bootstrap_servers: "k:9092"}
      storage: {type: local, path: /data}
      catalog: {type: unity, workspace_url: "https://adb-1.azuredatabricks.net", client_id: a, client_secret: s1, catalog: main, schema: bronze}
      """;
  static final String WEST = """
      catalogs:
        west: {type: unity, workspace_url: "https://adb-2.azuredatabricks.net", client_id: b, client_secret: west-secret-7, catalog: lake, schema: raw}
      """;

  final ConfigLoader loader = new ConfigLoader(Map.<String, String>of()::get);

  @Test
  void aSubscriptionNamesTheCatalogThatOwnsItsTablesAndTheCatalogBlockIsDefault() {
    WorkerConfig c = loader.parse(BASE + WEST + """
        subscriptions:
          - {topic: db.orders, table: orders}
          - {topic: db.items, table: items, catalog: west}
          - {topic: db.users, table: users, catalog: default}
        """, "test");
    assertEquals(List.of("default", "west"), c.catalogNames());
    assertEquals("default", c.catalogName(c.subscriptions().get(0)));
    assertEquals("west", c.catalogName(c.subscriptions().get(1)));
    assertEquals("default", c.catalogName(c.subscriptions().get(2)));
    assertEquals("lake", c.catalog("west").settings().get("catalog"));
    assertEquals("main", c.catalog("default").settings().get("catalog"));
    assertFalse(c.toString().contains("west-secret-7"), c.toString());
  }

  @Test
  void wrongNamedCatalogsAreRefusedWithTheirKey() {
    String sub = "subscriptions:\n  - {topic: db.orders, table: orders}\n";
    assertMessage(BASE + "catalogs:\n  default: {type: unity}\n" + sub, "'catalogs.default' uses the name of the catalog: block");
    assertMessage(BASE + "catalogs:\n  lake: {type: iceberg_rest}\n" + sub, "catalogs.lake.uri is missing");
    assertMessage(BASE + "catalogs:\n  lake: {type: delta_sharing}\n" + sub, "use unity or iceberg_rest");
    assertMessage(BASE + "catalogs:\n  lake: {type: none}\n" + sub, "'catalogs.lake.type' is 'none'");
    assertMessage(BASE + "catalogs:\n  lake: {catalog: main}\n" + sub, "catalogs.lake.type");
    assertMessage(BASE + "catalogs:\n  \"a.b\": {type: unity}\n" + sub, "'catalogs.a.b' is not a catalog name");
    assertMessage(BASE + WEST + "subscriptions:\n  - {topic: db.orders, table: orders, catalog: east}\n",
        "'subscriptions[0].catalog' is 'east', which is not configured: name one of [default, west]");
    String noDefault = BASE.replaceAll("catalog: \\{.*\\}\n", "");
    assertMessage(noDefault + WEST + "subscriptions:\n  - {topic: db.orders, table: orders, catalog: default}\n",
        "name one of [west]");
    assertMessage(BASE + "catalogs:\n  west: {type: unity, wrkspace_url: x}\n" + sub, "'catalogs.west.wrkspace_url' is not a known key");
  }

  @Test
  void anIcebergRestCatalogTakesItsOwnKeysAndKeepsItsSecretsOutOfMessages() {
    WorkerConfig c = loader.parse(BASE + """
        catalogs:
          lake: {type: iceberg_rest, uri: "https://polaris.example.com/api/catalog", warehouse: prod, namespace: bronze.sales,
                 client_id: lakesink, client_secret: lake-secret-9, scope: "PRINCIPAL_ROLE:ALL"}
          tok: {type: iceberg_rest, uri: "https://lakekeeper.example.com/catalog", namespace: raw, token: tok-secret-3}
        subscriptions:
          - {topic: db.items, table: items, catalog: lake}
        """, "test");
    assertEquals("iceberg_rest", c.catalog("lake").type());
    assertEquals("bronze.sales", c.catalog("lake").settings().get("namespace"));
    assertEquals("prod", c.catalog("lake").settings().get("warehouse"));
    assertEquals("lake", c.catalogName(c.subscriptions().get(0)));
    assertFalse(c.toString().contains("lake-secret-9"), c.toString());
    assertFalse(c.toString().contains("tok-secret-3"), c.toString());

    String sub = "subscriptions:\n  - {topic: db.orders, table: orders}\n";
    assertMessage(BASE + "catalogs:\n  lake: {type: iceberg_rest, uri: \"https://c\"}\n" + sub, "catalogs.lake.namespace is missing");
    assertMessage(BASE + "catalogs:\n  lake: {type: iceberg_rest, uri: \"https://c\", namespace: n, schema: bronze}\n" + sub,
        "'catalogs.lake.schema' only applies to catalogs of type unity");
    assertMessage(BASE + "catalogs:\n  lake: {type: iceberg_rest, uri: \"https://c\", namespace: n, client_id: x}\n" + sub,
        "client_secret is missing");
    assertMessage(BASE + "catalogs:\n  west: {type: unity, uri: \"https://c\"}\n" + sub, "only applies to catalogs of type iceberg_rest");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> loader.parse(BASE
        + "catalogs:\n  lake: {type: iceberg_rest, uri: \"https://c\", namespace: n, token: tok-secret-3, client_id: x, client_secret: y}\n"
        + sub, "test"));
    assertFalse(e.getMessage().contains("tok-secret-3"), e.getMessage());
  }

  private void assertMessage(String yaml, String expected) {
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> loader.parse(yaml, "test"));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}

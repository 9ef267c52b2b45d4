package io.lakesink.iceberg;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.CatalogTable;
import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.event.Operation;
import io.lakesink.iceberg.rest.IcebergRestCatalog;
import io.lakesink.iceberg.rest.IcebergRestSettings;
import io.lakesink.iceberg.rest.StorageDeltaTables;
import io.lakesink.iceberg.rest.RestCatalogServer;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ShiftableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * lakesink's Iceberg REST client against a real Iceberg REST server that requires what real
 * catalogs require: a bearer token, OAuth2 client credentials, a prefix from {@code /v1/config},
 * a warehouse. Every route lakesink uses (register, load, the advertised unregister and the
 * guarded drop) is exercised under each, and every request is looked at as the server got it.
 */
@Timeout(120)
class IcebergRestAuthTest {
  static final String ENTRY = "lakesink.orders_APPEND";
  static final String TOKEN = "tok-right-7f3a";
  static final String SECRET = "s3cr3t-value-91c2";

  @TempDir Path dir;
  final ShiftableClock clock = new ShiftableClock();

  @Test
  void aBearerTokenIsSentWithEveryRequestOfEveryRoute() throws Exception {
    try (RestCatalogServer server = server(true)) {
      server.requireToken(TOKEN);
      everyRoute(server, Map.of("token", TOKEN));
      List<RestCatalogServer.Request> received = server.received();
      assertTrue(received.size() >= 8, received.toString());
      for (RestCatalogServer.Request r : received) {
        assertEquals("Bearer " + TOKEN, r.authorization(), r.line());
      }
    }
  }

  @Test
  void aRefusedOrMissingTokenIsAConfigurationErrorThatNamesTheSettingAndShowsNoToken() throws Exception {
    try (RestCatalogServer server = server(true)) {
      server.requireToken(TOKEN);
      written();
      try (IcebergRestCatalog catalog = catalog(server, Map.of("token", "tok-wrong-55b1"))) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> catalog.register(shape()));
        assertTrue(e.getMessage().contains("refused lakesink's authentication"), e.getMessage());
        assertTrue(e.getMessage().contains("catalogs.lake.token"), e.getMessage());
        assertNoneContains(e, "tok-wrong-55b1", TOKEN);
      }
      try (IcebergRestCatalog catalog = catalog(server, Map.of())) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> catalog.register(shape()));
        assertTrue(e.getMessage().contains("requires authentication: set catalogs.lake.client_id"), e.getMessage());
      }
      assertNull(server.location(ENTRY));
    }
  }

  @Test
  void oauth2ClientCredentialsFetchATokenThatEveryOtherRequestCarries() throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    // slf4j-simple writes to System.err as it is at each line: lakesink's and Iceberg's logs land here.
    System.setErr(new PrintStream(new TeeStream(err, logged), true, StandardCharsets.UTF_8));
    try (RestCatalogServer server = server(true)) {
      server.requireClient("lakesink", SECRET);
      Map<String, String> auth = Map.of("client_id", "lakesink", "client_secret", SECRET, "scope", "PRINCIPAL_ROLE:ALL");
      everyRoute(server, auth);

      List<RestCatalogServer.Request> tokens =
          server.received().stream().filter(r -> r.line().equals("POST /v1/oauth/tokens")).toList();
      assertFalse(tokens.isEmpty(), server.requests().toString());
      for (RestCatalogServer.Request r : tokens) {
        assertEquals("client_credentials", r.form().get("grant_type"), r.form().keySet().toString());
        assertEquals("lakesink", r.form().get("client_id"));
        assertEquals(SECRET, r.form().get("client_secret"));
        assertEquals("PRINCIPAL_ROLE:ALL", r.form().get("scope"));
      }
      List<RestCatalogServer.Request> others =
          server.received().stream().filter(r -> !r.line().equals("POST /v1/oauth/tokens")).toList();
      assertTrue(others.size() >= 8, others.toString());
      for (RestCatalogServer.Request r : others) {
        assertEquals("Bearer client-credentials-token:sub=lakesink", r.authorization(), r.line());
      }
      IcebergRestSettings settings = settings(server, auth);
      assertFalse(settings.describe().contains(SECRET));
      assertFalse(settings.toString().contains(SECRET));
      try (IcebergRestCatalog catalog = catalog(server, auth)) {
        assertFalse(catalog.toString().contains(SECRET));
        assertFalse(catalog.describe().contains(SECRET));
      }
    } finally {
      System.setErr(err);
    }
    String log = logged.toString(StandardCharsets.UTF_8);
    assertTrue(log.contains("Registered " + ENTRY), "the log was captured: " + log);
    assertFalse(log.contains(SECRET), log);
    assertFalse(log.contains("missing the OAuth2 server URI"), "lakesink names the token endpoint itself: " + log);
  }

  @Test
  void aRefusedClientIsAConfigurationErrorWithoutTheSecret() throws Exception {
    try (RestCatalogServer server = server(true)) {
      server.requireClient("lakesink", SECRET);
      written();
      String wrong = "wrong-secret-0d4e";
      try (IcebergRestCatalog catalog = catalog(server, Map.of("client_id", "lakesink", "client_secret", wrong))) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> catalog.register(shape()));
        assertTrue(e.getMessage().contains("refused lakesink's authentication"), e.getMessage());
        assertTrue(e.getMessage().contains("catalogs.lake.client_secret"), e.getMessage());
        assertTrue(e.getMessage().contains("invalid_client"), e.getMessage());
        assertNoneContains(e, wrong, SECRET);
      }
      assertEquals(List.of("POST /v1/oauth/tokens"), server.requests(), "nothing but the refused token request was sent");
      assertNull(server.location(ENTRY));
    }
  }

  @Test
  void everyRouteGoesThroughThePrefixFromConfig() throws Exception {
    try (RestCatalogServer server = server(true)) {
      server.prefix("wh-one");
      everyRoute(server, Map.of());
      List<String> lines = server.requests();
      for (String line : lines) {
        String path = line.substring(line.indexOf(' ') + 1);
        assertTrue(path.startsWith("/v1/config") || path.startsWith("/v1/wh-one/"), line);
      }
      assertTrue(lines.contains("POST /v1/wh-one/namespaces/lakesink/register"), lines.toString());
      assertTrue(lines.stream().anyMatch(l -> l.startsWith("GET /v1/wh-one/namespaces/lakesink/tables/orders_APPEND")),
          lines.toString());
      assertTrue(lines.contains("POST /v1/wh-one/namespaces/lakesink/tables/orders_APPEND/unregister"), lines.toString());
      assertTrue(lines.contains("DELETE /v1/wh-one/namespaces/lakesink/tables/orders_APPEND?purgeRequested=false"),
          lines.toString());
    }
  }

  @Test
  void theWarehouseIsAskedForInConfig() throws Exception {
    try (RestCatalogServer server = server(true)) {
      everyRoute(server, Map.of("warehouse", "wh-a"));
      List<String> configs = server.requests().stream().filter(l -> l.startsWith("GET /v1/config")).toList();
      assertFalse(configs.isEmpty());
      assertTrue(configs.stream().allMatch(l -> l.equals("GET /v1/config?warehouse=wh-a")), configs.toString());
    }
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Register, load, unregister by the advertised route, register again, then — through a new
   * connection that finds unregister no longer advertised — the guarded drop; each checked on the
   * server's side.
   */
  private void everyRoute(RestCatalogServer server, Map<String, String> extra) {
    written();
    try (IcebergRestCatalog catalog = catalog(server, extra)) {
      catalog.register(shape());
      assertEquals(location(), server.location(ENTRY));
      assertEquals(location(), catalog.entries().location("lake", ENTRY).orElseThrow());
      catalog.entries().unregister("lake", ENTRY, location());
      assertEquals(1, server.unregistered());
      assertNull(server.location(ENTRY));
      catalog.entries().register("lake", ENTRY, shape());
      assertEquals(location(), server.location(ENTRY));
    }
    server.advertiseUnregister(false);
    try (IcebergRestCatalog catalog = catalog(server, extra)) {
      catalog.entries().unregister("lake", ENTRY, location());
      assertEquals(1, server.unregistered(), "dropped, not unregistered");
      assertNull(server.location(ENTRY));
    }
    assertTrue(server.requests().stream().anyMatch(l -> l.startsWith("DELETE ") && l.endsWith("?purgeRequested=false")),
        server.requests().toString());
  }

  private static void assertNoneContains(Throwable e, String... secrets) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (String secret : secrets) {
        assertFalse(String.valueOf(t.getMessage()).contains(secret), t.toString());
        assertFalse(t.toString().contains(secret), t.toString());
      }
    }
  }

  private RestCatalogServer server(boolean advertiseUnregister) throws Exception {
    RestCatalogServer server = RestCatalogServer.start(Files.createDirectories(dir.resolve("catalog")), advertiseUnregister);
    server.createNamespace("lakesink");
    return server;
  }

  private static IcebergRestSettings settings(RestCatalogServer server, Map<String, String> extra) {
    Map<String, String> config = new HashMap<>(extra);
    config.put("uri", server.uri());
    config.put("namespace", "lakesink");
    return IcebergRestSettings.fromConfig("lake", config);
  }

  private IcebergRestCatalog catalog(RestCatalogServer server, Map<String, String> extra) {
    return new IcebergRestCatalog(settings(server, extra), tables(), new Configuration(), Duration.ZERO);
  }

  private IcebergRestCatalog.DeltaTables tables() {
    return StorageDeltaTables.of(storage(), location -> DeliveryMode.CHANGELOG);
  }

  private LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  private void written() {
    Subscription sub = new Subscription("db.orders", "orders", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    ChangelogDelivery d = new ChangelogDelivery(sub, table(),
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withClock(clock).withBackoff(millis -> {}));
    d.accept(event("db.orders", 0, 0, Operation.CREATE, 1000L, row("id", 1L, "status", "new")));
    d.flush();
  }

  private DeltaTable table() {
    return new DeltaTable(KernelEngine.create(storage()), storage().tableLocation("orders_APPEND"));
  }

  private String location() {
    return table().location();
  }

  private CatalogTable shape() {
    DeltaTable t = table();
    return new CatalogTable("orders_APPEND", t.location(), t.columns().orElseThrow(), t.partitionColumns());
  }

  /** Writes to both streams: the test's copy of System.err and the real one. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }
}

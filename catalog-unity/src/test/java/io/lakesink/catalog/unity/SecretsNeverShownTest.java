package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Drives every path that logs or raises — success, throttling, token expiry, refusals, conflicts,
 * connection checks, an unreachable workspace — with the log captured, and checks that neither
 * the client secret nor any access token the fake issued shows up anywhere.
 */
class SecretsNeverShownTest {
  private static final String WRONG_SECRET = "dose-wrong-0123456789abcdef";

  private final List<String> texts = new ArrayList<>();

  private void attempt(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      texts.add(trace.toString());
      texts.add(e.toString());
    }
  }

  @Test
  void neitherTheSecretNorATokenReachesLogsMessagesOrToString() throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    List<String> tokens;
    try (Harness h = Harness.start()) {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      try {
        UnityCatalog catalog = h.catalog();
        texts.add(catalog.settings().toString());
        texts.add(catalog.describe());
        texts.add(catalog.toString());
        h.fake.throttle(2, "1");
        attempt(() -> catalog.register(Harness.orders()));
        h.fake.expireTokens();
        attempt(() -> catalog.register(Harness.orders(new Column("coupon", ColumnType.STRING))));
        catalog.checkConnection().forEach(r -> texts.add(r.toString()));
        h.fake.putTable("main.bronze.other", "EXTERNAL", "abfss://x@y.dfs.core.windows.net/z", "id", "bigint");
        attempt(() -> catalog.register(new io.lakesink.catalog.CatalogTable("other", Harness.LOCATION, List.of(new Column("id", ColumnType.BIGINT)), List.of())));
        h.fake.revoke("schema", "main.bronze", "CREATE_EXTERNAL_TABLE");
        attempt(() -> catalog.register(new io.lakesink.catalog.CatalogTable("t2", Harness.LOCATION + "2", List.of(new Column("id", ColumnType.BIGINT)), List.of())));
        attempt(catalog::checkPermissions);
        h.fake.disableExternalAccess();
        attempt(() -> catalog.register(new io.lakesink.catalog.CatalogTable("t3", Harness.LOCATION + "3", List.of(new Column("id", ColumnType.BIGINT)), List.of())));
        catalog.checkConnection().forEach(r -> texts.add(r.toString()));
        UnitySettings wrong = UnitySettings.servicePrincipal(h.fake.url(), FakeDatabricks.CLIENT_ID, WRONG_SECRET, "main", "bronze");
        texts.add(wrong.toString());
        attempt(() -> h.catalog(wrong).register(Harness.orders()));
        h.fake.refuseAllTokens();
        attempt(() -> h.catalog().register(Harness.orders()));
        h.fake.close();
        attempt(() -> catalog.register(Harness.orders()));
        attempt(() -> h.catalog().checkToken());
      } finally {
        System.err.flush();
        System.setErr(original);
      }
      tokens = h.fake.issuedTokens();
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    // The capture works: the log holds what happened.
    assertTrue(log.contains("Registered main.bronze.orders_APPEND"), log);
    assertTrue(log.contains("Re-registering main.bronze.orders_APPEND"), log);
    assertTrue(log.contains("429 REQUEST_LIMIT_EXCEEDED"), log);
    assertTrue(log.contains("OAuth token for service principal"), log);
    assertTrue(tokens.size() >= 3, tokens.toString());
    texts.add(log);
    String everything = String.join("\n", texts);
    assertTrue(everything.contains("GRANT CREATE EXTERNAL TABLE"), everything);
    assertTrue(everything.contains("External data access is disabled"), everything);
    assertTrue(everything.contains("invalid_client"), everything);
    for (String secret : List.of(FakeDatabricks.CLIENT_SECRET, WRONG_SECRET)) {
      assertFalse(everything.contains(secret), "client secret leaked");
    }
    for (String token : tokens) {
      assertFalse(everything.contains(token), "access token leaked");
      assertFalse(everything.contains(token.substring(0, 20)), "part of an access token leaked");
    }
  }
}

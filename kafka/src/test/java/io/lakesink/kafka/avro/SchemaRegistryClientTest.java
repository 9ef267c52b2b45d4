package io.lakesink.kafka.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.testing.MutableClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class SchemaRegistryClientTest {
  static final Schema V1 = AvroRecords.resource("customers-value-v1.avsc");
  static final Duration FAST = Duration.ofMillis(10);
  static final Duration FAILURE_BACKOFF = Duration.ofSeconds(5);
  final MutableClock clock = new MutableClock();

  SchemaRegistryClient client(SchemaRegistrySettings settings) {
    return client(settings, Duration.ofSeconds(2), 3, FAST);
  }

  SchemaRegistryClient client(SchemaRegistrySettings settings, Duration timeout, int attempts, Duration backoff) {
    return new SchemaRegistryClient(
        settings.withTimeout(timeout), new SchemaRegistryClient.Limits(attempts, backoff, FAILURE_BACKOFF, 100), clock);
  }

  /** Basic auth over plain http, as the in-test registry speaks it. */
  static SchemaRegistrySettings insecure(String url, String user, String password) {
    return new SchemaRegistrySettings(url, user, password, null, null, true, null);
  }

  static Path resource(String name) throws Exception {
    return Path.of(SchemaRegistryClientTest.class.getResource("/avro/" + name).toURI());
  }

  @Test
  void fetchesASchemaOnceAndSharesItAcrossThreads() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("db.inv.customers-value", V1);
      SchemaRegistryClient client = client(SchemaRegistrySettings.of(registry.url() + "/"));
      Schema first = client.schemaById(id);
      assertEquals(V1, first);
      assertEquals("db.inv.customers.Value", first.getProp("connect.name"), "connect.* properties survive");
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<Schema>> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          all.add(pool.submit(() -> client.schemaById(id)));
        }
        for (Future<Schema> f : all) {
          assertSame(first, f.get());
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(1, registry.requests("/schemas/ids/" + id));
      assertEquals(registry.url(), client.url(), "no trailing slash");
    }
  }

  @Test
  void unknownIdsAndWrongUrlsAreNotRetried() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      DecodeException unknown = assertThrows(DecodeException.class, () -> client(SchemaRegistrySettings.of(registry.url())).schemaById(77));
      assertTrue(unknown.getMessage().startsWith("unknown schema id 77 at " + registry.url()), unknown.getMessage());
      assertTrue(unknown.getMessage().contains("40403"), unknown.getMessage());
      assertEquals(1, registry.requests("/schemas/ids/77"));

      DecodeException wrongPath = assertThrows(DecodeException.class,
          () -> client(SchemaRegistrySettings.of(registry.url() + "/not-the-registry")).schemaById(1));
      assertTrue(wrongPath.getMessage().contains("schema_registry.url"), wrongPath.getMessage());
    }
  }

  @Test
  void connectionRefusedIsRetryable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port;
    RetryableException e = assertThrows(RetryableException.class, () -> client(SchemaRegistrySettings.of(url)).schemaById(1));
    assertTrue(e.getMessage().contains(url) && e.getMessage().contains("after 3 attempts"), e.getMessage());
    assertTrue(e.getMessage().contains("ConnectException"), e.getMessage());
  }

  @Test
  void serverErrorsAreRetriedWithBackoffThenRetryable() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("s-value", V1);
      SchemaRegistryClient client = client(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(2), 4, Duration.ofMillis(50));
      registry.failWith(500);
      long start = System.nanoTime();
      RetryableException e = assertThrows(RetryableException.class, () -> client.schemaById(id));
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(elapsedMs >= 50 + 100 + 200, "backoff doubles: " + elapsedMs + " ms");
      assertEquals(4, registry.requests("/schemas/ids/" + id));
      assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
      registry.failWith(429);
      clock.advance(FAILURE_BACKOFF);
      assertTrue(assertThrows(RetryableException.class, () -> client.schemaById(id)).getMessage().contains("HTTP 429"));
      assertEquals(8, registry.requests("/schemas/ids/" + id));
      registry.up();
      clock.advance(FAILURE_BACKOFF);
      assertEquals(V1, client.schemaById(id));
    }
  }

  @Test
  void basicAuthIsSentAndPasswordsNeverShown() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("s-value", V1);
      registry.requireBasicAuth("reader", "s3cret-pw");
      // Refused credentials are the worker's problem, not the record's: a configuration fault.
      ConfigurationException refused = assertThrows(ConfigurationException.class,
          () -> client(insecure(registry.url(), "reader", "wrong-pw")).schemaById(id));
      assertTrue(refused.getMessage().contains("HTTP 401"), refused.getMessage());
      assertTrue(refused.getMessage().contains("schema_registry.username"), refused.getMessage());
      assertFalse(refused.getMessage().contains("wrong-pw"));

      SchemaRegistrySettings settings = insecure(registry.url(), "reader", "s3cret-pw");
      SchemaRegistryClient client = client(settings);
      assertEquals(V1, client.schemaById(id));
      assertFalse(settings.toString().contains("s3cret-pw"), settings.toString());
      assertTrue(settings.toString().contains("password=****"), settings.toString());
      assertFalse(client.toString().contains("s3cret-pw"), client.toString());

      registry.failWith(503);
      RetryableException down = assertThrows(RetryableException.class, () -> client.schemaById(id + 1));
      assertFalse(down.getMessage().contains("s3cret-pw"), down.getMessage());
    }
  }

  @Test
  void httpsWithATrustStore() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.startHttps("/avro/registry-server.p12", "server-pw")) {
      int id = registry.register("s-value", V1);
      for (String store : List.of("registry-trust.p12", "registry-trust.jks")) {
        SchemaRegistrySettings settings =
            new SchemaRegistrySettings(registry.url(), null, null, resource(store).toString(), "trust-pw");
        assertEquals(V1, client(settings).schemaById(id), store);
        assertFalse(settings.toString().contains("trust-pw"), settings.toString());
      }
      // Without the trust store the registry's self-signed certificate is refused.
      RetryableException untrusted = assertThrows(RetryableException.class,
          () -> client(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(2), 1, FAST).schemaById(id));
      assertTrue(untrusted.getMessage().contains("SSLHandshakeException"), untrusted.getMessage());

      ConfigurationException badPassword = assertThrows(ConfigurationException.class,
          () -> new SchemaRegistryClient(new SchemaRegistrySettings(registry.url(), null, null, resource("registry-trust.p12").toString(), "not-the-pw")));
      assertTrue(badPassword.getMessage().contains("schema_registry.trust_store"), badPassword.getMessage());
      assertFalse(badPassword.getMessage().contains("not-the-pw"), badPassword.getMessage());
      assertThrows(ConfigurationException.class,
          () -> new SchemaRegistryClient(new SchemaRegistrySettings(registry.url(), null, null, "/no/such/store.p12", null)));
    }
  }

  @Test
  void answersThatAreNotAvroSchemasAreUndecodable() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/schemas/ids/", ex -> {
      String id = ex.getRequestURI().getPath().substring("/schemas/ids/".length());
      String body = switch (id) {
        case "1" -> "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\";\"}";
        case "2" -> "{\"schema\":\"{\\\"type\\\":\\\"recrd\\\"}\"}";
        case "3" -> "{\"schema\":\"\\\"string\\\"\",\"references\":[{\"name\":\"x\",\"subject\":\"y\",\"version\":1}]}";
        case "4" -> "<html>not json</html>";
        default -> "{\"schemaType\":\"AVRO\",\"schema\":\"\\\"long\\\"\"}";
      };
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", TestSchemaRegistry.CONTENT_TYPE);
      ex.sendResponseHeaders(200, bytes.length);
      ex.getResponseBody().write(bytes);
      ex.close();
    });
    server.start();
    try {
      SchemaRegistryClient client = client(SchemaRegistrySettings.of("http://127.0.0.1:" + server.getAddress().getPort()));
      assertTrue(assertThrows(DecodeException.class, () -> client.schemaById(1)).getMessage().contains("PROTOBUF schema, not Avro"));
      assertTrue(assertThrows(DecodeException.class, () -> client.schemaById(2)).getMessage().contains("not a valid Avro schema"));
      assertTrue(assertThrows(DecodeException.class, () -> client.schemaById(3)).getMessage().contains("references"));
      assertTrue(assertThrows(DecodeException.class, () -> client.schemaById(4)).getMessage().contains("invalid JSON"));
      assertEquals(Schema.Type.LONG, client.schemaById(5).getType());
    } finally {
      server.stop(0);
    }
  }

  @Test
  void settingsAreCheckedAndNameTheirKey() {
    assertTrue(assertThrows(ConfigurationException.class, () -> SchemaRegistrySettings.of(null)).getMessage().contains("schema_registry.url"));
    assertTrue(assertThrows(ConfigurationException.class, () -> SchemaRegistrySettings.of("registry:8081")).getMessage().contains("schema_registry.url"));
    ConfigurationException userInfo = assertThrows(ConfigurationException.class, () -> SchemaRegistrySettings.of("http://u:secret@registry:8081"));
    assertFalse(userInfo.getMessage().contains("secret"), userInfo.getMessage());
    assertTrue(assertThrows(ConfigurationException.class, () -> new SchemaRegistrySettings("http://r:8081", "u", null, null, null))
        .getMessage().contains("schema_registry.username"));
    assertTrue(assertThrows(ConfigurationException.class, () -> new SchemaRegistrySettings("http://r:8081", null, "pw", null, null))
        .getMessage().contains("schema_registry.password"));
    assertTrue(assertThrows(ConfigurationException.class, () -> new SchemaRegistrySettings("http://r:8081", null, null, "/t.p12", null))
        .getMessage().contains("https"));
    SchemaRegistrySettings blanks = new SchemaRegistrySettings(" https://r:8081/ccompat/ ", "", " ", null, "");
    assertNull(blanks.username());
    assertNull(blanks.password());
    assertNull(blanks.trustStorePassword());
    assertEquals("https://r:8081/ccompat", blanks.baseUrl());
  }

  @Test
  void anIdThatJustFailedIsNotAskedAgainUntilTheBackoffHasPassed() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("s-value", V1);
      String path = "/schemas/ids/" + id;
      SchemaRegistryClient client = client(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(2), 1, FAST);
      registry.failWith(503);
      RetryableException first = assertThrows(RetryableException.class, () -> client.schemaById(id));
      assertEquals(1, registry.requests(path));
      registry.up();
      // Within the back-off: the failure again, as retryable, without a request.
      for (int i = 0; i < 5; i++) {
        RetryableException again = assertThrows(RetryableException.class, () -> client.schemaById(id));
        assertTrue(again.getMessage().startsWith(first.getMessage()), again.getMessage());
        assertTrue(again.getMessage().contains("not asking again"), again.getMessage());
      }
      clock.advance(FAILURE_BACKOFF.minusMillis(1));
      assertThrows(RetryableException.class, () -> client.schemaById(id));
      assertEquals(1, registry.requests(path), "not asked during the back-off");
      assertThrows(DecodeException.class, () -> client.schemaById(id + 1));
      assertEquals(1, registry.requests("/schemas/ids/" + (id + 1)), "other ids are asked as usual");
      clock.advance(Duration.ofMillis(1));
      assertEquals(V1, client.schemaById(id));
      assertEquals(2, registry.requests(path));
    }
  }

  @Test
  void atMostOneLookupPerIdIsInFlight() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("s-value", V1);
      SchemaRegistryClient client = client(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(20), 1, FAST);
      registry.holdAnswers();
      int callers = 6;
      ExecutorService pool = Executors.newFixedThreadPool(callers);
      List<Thread> threads = new CopyOnWriteArrayList<>();
      try {
        List<Future<Schema>> all = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
          all.add(pool.submit(() -> {
            threads.add(Thread.currentThread());
            return client.schemaById(id);
          }));
        }
        // Every caller is blocked: one on its request, the others on that one.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (threads.size() < callers || !threads.stream().allMatch(SchemaRegistryClientTest::blocked)
            || registry.requests("/schemas/ids/" + id) == 0) {
          assertTrue(System.nanoTime() < deadline, "callers did not block");
          java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // polling a condition, not waiting for time
        }
        registry.up();
        for (Future<Schema> f : all) {
          assertEquals(V1, f.get(20, TimeUnit.SECONDS));
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(1, registry.requests("/schemas/ids/" + id), "one request for " + callers + " concurrent callers");
    }
  }

  private static boolean blocked(Thread t) {
    Thread.State s = t.getState();
    return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
  }

  @Test
  void aLookupNeverHoldsItsCallerLongerThanTheTimeout() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("s-value", V1);
      // Five attempts of a second each would hold the caller five seconds: the timeout bounds them all.
      SchemaRegistryClient client = client(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(1), 5, FAST);
      registry.hang();
      long start = System.nanoTime();
      RetryableException e = assertThrows(RetryableException.class, () -> client.schemaById(id));
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(elapsedMs < 3000, "held " + elapsedMs + " ms");
      assertTrue(e.getMessage().contains("timed out") && e.getMessage().contains("within 1000 ms"), e.getMessage());
    }
    // A registry that accepts connections but never answers (a black-holed port behind a proxy).
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      SchemaRegistryClient client = client(
          SchemaRegistrySettings.of("http://127.0.0.1:" + silent.getLocalPort()), Duration.ofSeconds(1), 5, FAST);
      long start = System.nanoTime();
      assertThrows(RetryableException.class, () -> client.schemaById(1));
      assertTrue((System.nanoTime() - start) / 1_000_000 < 3000);
    }
    assertEquals(Duration.ofSeconds(5), SchemaRegistrySettings.of("http://r:8081").timeout(), "the default");
  }

  @Test
  void theSchemaCacheIsBounded() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int a = registry.register("a-value", V1);
      int b = registry.register("b-value", Schema.create(Schema.Type.STRING));
      int c = registry.register("c-value", Schema.create(Schema.Type.LONG));
      SchemaRegistryClient client = new SchemaRegistryClient(
          SchemaRegistrySettings.of(registry.url()), new SchemaRegistryClient.Limits(1, FAST, FAILURE_BACKOFF, 2), clock);
      client.schemaById(a);
      client.schemaById(b);
      client.schemaById(a); // a is now the most recently used
      client.schemaById(c); // evicts b
      client.schemaById(a);
      assertEquals(1, registry.requests("/schemas/ids/" + a));
      client.schemaById(b);
      assertEquals(2, registry.requests("/schemas/ids/" + b), "evicted, fetched again");
    }
  }

  @Test
  void rememberedFailuresAreBoundedToo() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      SchemaRegistryClient client = new SchemaRegistryClient(
          SchemaRegistrySettings.of(registry.url()), new SchemaRegistryClient.Limits(1, FAST, FAILURE_BACKOFF, 2), clock);
      registry.failWith(503);
      for (int id = 1; id <= 2; id++) {
        int i = id;
        assertThrows(RetryableException.class, () -> client.schemaById(i));
        assertThrows(RetryableException.class, () -> client.schemaById(i));
        assertEquals(1, registry.requests("/schemas/ids/" + id), "remembered");
      }
      assertThrows(RetryableException.class, () -> client.schemaById(3)); // a third failing id: the oldest are let go
      assertThrows(RetryableException.class, () -> client.schemaById(1));
      assertEquals(2, registry.requests("/schemas/ids/1"), "forgotten, asked again");
    }
  }

  @Test
  void basicAuthOverPlainHttpNeedsAnExplicitOptIn() {
    ConfigurationException refused = assertThrows(ConfigurationException.class,
        () -> new SchemaRegistrySettings("http://registry:8081", "reader", "s3cret-pw", null, null));
    assertTrue(refused.getMessage().contains("schema_registry.allow_insecure_http"), refused.getMessage());
    assertTrue(refused.getMessage().contains("https"), refused.getMessage());
    assertFalse(refused.getMessage().contains("s3cret-pw"), refused.getMessage());
    assertTrue(new SchemaRegistrySettings("http://localhost:8081", "reader", "pw", null, null, true, null).allowInsecureHttp());
    assertEquals("reader", new SchemaRegistrySettings("https://registry:8081", "reader", "pw", null, null).username());
    assertEquals("http://registry:8081", SchemaRegistrySettings.of("http://registry:8081").url(), "no credentials: http is fine");
    for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-1), Duration.ofMinutes(2))) {
      ConfigurationException timeout = assertThrows(ConfigurationException.class,
          () -> new SchemaRegistrySettings("https://r:8081", null, null, null, null, false, bad));
      assertTrue(timeout.getMessage().contains("schema_registry.timeout"), timeout.getMessage());
    }
  }

  @Test
  void testRegistrySpeaksTheConfluentApi() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("t-value", V1);
      assertEquals(id, registry.register("t-value", V1), "registering the same schema again gives its id");
      HttpClient http = HttpClient.newHttpClient();
      ObjectMapper mapper = new ObjectMapper();
      HttpResponse<String> latest = http.send(HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/t-value/versions/latest")).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode body = mapper.readTree(latest.body());
      assertEquals(id, body.get("id").asInt());
      assertEquals(1, body.get("version").asInt());
      assertEquals(V1, new Schema.Parser().parse(body.get("schema").asText()));
      HttpResponse<String> missing = http.send(HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/nope/versions/latest")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(404, missing.statusCode());
      assertEquals(40401, mapper.readTree(missing.body()).get("error_code").asInt());
      assertEquals(TestSchemaRegistry.CONTENT_TYPE, missing.headers().firstValue("Content-Type").orElse(""));
    }
  }
}

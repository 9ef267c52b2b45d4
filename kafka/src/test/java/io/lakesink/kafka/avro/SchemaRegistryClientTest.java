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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class SchemaRegistryClientTest {
  static final Schema V1 = AvroRecords.resource("customers-value-v1.avsc");
  static final Duration FAST = Duration.ofMillis(10);

  static SchemaRegistryClient client(SchemaRegistrySettings settings) {
    return new SchemaRegistryClient(settings, Duration.ofSeconds(2), 3, FAST);
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
      SchemaRegistryClient client = new SchemaRegistryClient(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(2), 4, Duration.ofMillis(50));
      registry.failWith(500);
      long start = System.nanoTime();
      RetryableException e = assertThrows(RetryableException.class, () -> client.schemaById(id));
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(elapsedMs >= 50 + 100 + 200, "backoff doubles: " + elapsedMs + " ms");
      assertEquals(4, registry.requests("/schemas/ids/" + id));
      assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
      registry.failWith(429);
      assertThrows(RetryableException.class, () -> client.schemaById(id));
      registry.up();
      assertEquals(V1, client.schemaById(id));
    }
  }

  @Test
  void basicAuthIsSentAndPasswordsNeverShown() throws Exception {
    try (TestSchemaRegistry registry = TestSchemaRegistry.start()) {
      int id = registry.register("s-value", V1);
      registry.requireBasicAuth("reader", "s3cret-pw");
      DecodeException refused = assertThrows(DecodeException.class,
          () -> client(new SchemaRegistrySettings(registry.url(), "reader", "wrong-pw", null, null)).schemaById(id));
      assertTrue(refused.getMessage().contains("HTTP 401"), refused.getMessage());
      assertTrue(refused.getMessage().contains("schema_registry.username"), refused.getMessage());
      assertFalse(refused.getMessage().contains("wrong-pw"));

      SchemaRegistrySettings settings = new SchemaRegistrySettings(registry.url(), "reader", "s3cret-pw", null, null);
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
          () -> new SchemaRegistryClient(SchemaRegistrySettings.of(registry.url()), Duration.ofSeconds(2), 1, FAST).schemaById(id));
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

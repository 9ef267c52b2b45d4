package io.lakesink.kafka.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.kafka.decode.DecodeException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small client for the read side of the Confluent schema registry REST API, enough to decode
 * Confluent wire-format records: {@code GET /schemas/ids/{id}}. Works with Confluent, Redpanda,
 * Karapace and Apicurio's compatibility endpoint.
 *
 * <p>Schemas are cached forever by id (a registry never changes what an id means). Transient
 * failures (connection refused, timeouts, HTTP 5xx, 408, 429) are retried a few times with
 * backoff, then reported as a {@link RetryableException}; answers no retry can change (an unknown
 * id, refused credentials, a schema that is not Avro) are a {@link DecodeException}. Neither
 * message ever carries a password. Thread-safe: one client can serve every subscription of a
 * worker that uses the same registry.
 */
public final class SchemaRegistryClient {
  private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  public static final int DEFAULT_ATTEMPTS = 3;
  public static final Duration DEFAULT_BACKOFF = Duration.ofMillis(250);

  static final String ACCEPT =
      "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";

  private final SchemaRegistrySettings settings;
  private final String baseUrl;
  private final String authorization;
  private final HttpClient http;
  private final Duration timeout;
  private final int attempts;
  private final Duration backoff;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Map<Integer, Schema> byId = new ConcurrentHashMap<>();

  public SchemaRegistryClient(SchemaRegistrySettings settings) {
    this(settings, DEFAULT_TIMEOUT, DEFAULT_ATTEMPTS, DEFAULT_BACKOFF);
  }

  /**
   * @param timeout for connecting and for each request
   * @param attempts how many times a transiently failing request is tried (at least 1)
   * @param backoff the wait before the second attempt; it doubles for each further one
   * @throws io.lakesink.error.ConfigurationException when the trust store cannot be read
   */
  public SchemaRegistryClient(SchemaRegistrySettings settings, Duration timeout, int attempts, Duration backoff) {
    this.settings = settings;
    this.baseUrl = settings.baseUrl();
    this.timeout = timeout;
    this.attempts = Math.max(1, attempts);
    this.backoff = backoff;
    this.authorization = settings.username() == null
        ? null
        : "Basic " + Base64.getEncoder().encodeToString(
            (settings.username() + ":" + settings.password()).getBytes(StandardCharsets.UTF_8));
    HttpClient.Builder builder = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(timeout)
        .followRedirects(HttpClient.Redirect.NEVER); // never replay credentials to another host
    if (settings.trustStorePath() != null) {
      builder.sslContext(sslContext(settings.trustStorePath(), settings.trustStorePassword()));
    }
    this.http = builder.build();
  }

  /** The registry's base URL (never carries credentials). */
  public String url() {
    return baseUrl;
  }

  public SchemaRegistrySettings settings() {
    return settings;
  }

  /**
   * The writer schema registered under {@code id}.
   *
   * @throws DecodeException when the registry does not know the id, or its answer can never be
   *     used (not Avro, invalid, credentials refused)
   * @throws RetryableException when the registry could not be reached or failed; asking again
   *     later may succeed
   */
  public Schema schemaById(int id) throws DecodeException {
    Schema cached = byId.get(id);
    if (cached != null) {
      return cached;
    }
    JsonNode body = get("/schemas/ids/" + id, id);
    String type = body.path("schemaType").asText("AVRO");
    if (!"AVRO".equalsIgnoreCase(type)) {
      throw new DecodeException("schema id " + id + " at " + baseUrl + " is a " + type + " schema, not Avro");
    }
    JsonNode refs = body.get("references");
    if (refs != null && refs.isArray() && !refs.isEmpty()) {
      throw new DecodeException(
          "schema id " + id + " at " + baseUrl + " references other schemas, which lakesink does not resolve");
    }
    JsonNode text = body.get("schema");
    if (text == null || !text.isTextual()) {
      throw new DecodeException("the schema registry at " + baseUrl + " answered without a schema for id " + id);
    }
    Schema schema;
    try {
      // The registry validated the schema when it was registered: do not refuse it here over
      // a name or default a stricter parser dislikes.
      schema = new Schema.Parser(NameValidator.NO_VALIDATION).setValidateDefaults(false).parse(text.textValue());
    } catch (SchemaParseException | IllegalArgumentException e) {
      throw new DecodeException(
          "schema id " + id + " at " + baseUrl + " is not a valid Avro schema (" + e.getMessage() + ")", e);
    }
    Schema previous = byId.putIfAbsent(id, schema);
    return previous == null ? schema : previous;
  }

  private JsonNode get(String path, int id) throws DecodeException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(timeout)
        .header("Accept", ACCEPT)
        .GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    HttpRequest built = request.build();
    String last = null;
    Throwable lastCause = null;
    long wait = backoff.toMillis();
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        log.warn("Schema registry {}: GET {} failed ({}); retrying in {} ms", baseUrl, path, last, wait);
        sleep(wait, path);
        wait *= 2;
      }
      HttpResponse<byte[]> response;
      try {
        response = http.send(built, HttpResponse.BodyHandlers.ofByteArray());
      } catch (IOException e) {
        last = describe(e);
        lastCause = e;
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RetryableException("Interrupted while asking the schema registry at " + baseUrl + " for schema id " + id, e);
      }
      int status = response.statusCode();
      if (status == 200) {
        try {
          JsonNode body = mapper.readTree(response.body());
          if (body == null || !body.isObject()) {
            throw new DecodeException("the schema registry at " + baseUrl + " answered GET " + path + " with no JSON object");
          }
          return body;
        } catch (IOException e) {
          throw new DecodeException(
              "the schema registry at " + baseUrl + " answered GET " + path + " with invalid JSON", e);
        }
      }
      ErrorBody error = errorBody(response.body());
      if (status >= 500 || status == 408 || status == 429) {
        last = "HTTP " + status + error.suffix();
        lastCause = null;
        continue;
      }
      if (status == 404 && error.code() == 40403) {
        throw new DecodeException("unknown schema id " + id + " at " + baseUrl + " (the registry answered 40403" + error.messageSuffix() + ")");
      }
      if (status == 404) {
        throw new DecodeException(
            "unknown schema id " + id + " at " + baseUrl + ": GET " + path + " answered HTTP 404" + error.suffix()
                + "; is schema_registry.url the registry's base URL?");
      }
      if (status == 401 || status == 403) {
        throw new DecodeException(
            "the schema registry at " + baseUrl + " refused access to schema id " + id + " (HTTP " + status
                + error.suffix() + "): check schema_registry.username and schema_registry.password");
      }
      throw new DecodeException(
          "the schema registry at " + baseUrl + " refused GET " + path + " (HTTP " + status + error.suffix() + ")");
    }
    throw new RetryableException(
        "The schema registry at " + baseUrl + " could not give schema id " + id + " after " + attempts
            + " attempts (last: " + last + ")",
        lastCause);
  }

  private void sleep(long millis, String path) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetryableException("Interrupted while retrying GET " + path + " at " + baseUrl, e);
    }
  }

  private static String describe(IOException e) {
    String kind = e.getClass().getSimpleName();
    String msg = e.getMessage();
    if (msg == null && e.getCause() != null) {
      msg = e.getCause().getMessage();
      kind = e.getCause().getClass().getSimpleName();
    }
    return msg == null ? kind : kind + ": " + msg;
  }

  private record ErrorBody(int code, String message) {
    String suffix() {
      if (code == 0 && message == null) {
        return "";
      }
      return ", " + (code == 0 ? "" : "error_code " + code) + (code != 0 && message != null ? ": " : "")
          + (message == null ? "" : message);
    }

    String messageSuffix() {
      return message == null ? "" : ": " + message;
    }
  }

  private ErrorBody errorBody(byte[] body) {
    try {
      JsonNode n = mapper.readTree(body);
      if (n != null && n.isObject()) {
        String message = n.path("message").isTextual() ? abbreviate(n.get("message").textValue()) : null;
        return new ErrorBody(n.path("error_code").asInt(0), message);
      }
    } catch (IOException | RuntimeException e) {
      // not JSON: an HTML error page from a proxy, …
    }
    return new ErrorBody(0, null);
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 197) + "...";
  }

  private static SSLContext sslContext(String path, String password) {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      String type = path.toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
      KeyStore store = KeyStore.getInstance(type);
      store.load(in, password == null ? null : password.toCharArray());
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw Errors.invalid(
          "schema_registry.trust_store",
          "cannot be read as a PKCS12 or JKS trust store (" + path + ": " + e.getMessage() + ")",
          "check the file and schema_registry.trust_store_password");
    }
  }

  @Override
  public String toString() {
    return "SchemaRegistryClient[" + settings + "]";
  }
}

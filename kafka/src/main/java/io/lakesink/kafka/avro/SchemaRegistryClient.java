package io.lakesink.kafka.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.error.Errors;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.retry.RetryPolicy;
import java.util.concurrent.ThreadLocalRandom;
import io.lakesink.kafka.decode.DecodeException;
import io.lakesink.kafka.decode.LruCache;
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
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small client for the read side of the Confluent schema registry REST API, enough to decode
 * Confluent wire-format records: {@code GET /schemas/ids/{id}}. Works with Confluent, Redpanda,
 * Karapace and Apicurio's compatibility endpoint.
 *
 * <p>Schemas are cached by id (a registry never changes what an id means), the least recently used
 * beyond {@link Limits#cacheSize}. Transient failures (connection refused, timeouts, HTTP 5xx,
 * 408, 429) are retried a few times with backoff, then reported as a {@link RetryableException};
 * answers no retry can change (an unknown id, refused credentials, a schema that is not Avro) are
 * a {@link DecodeException}. Neither message ever carries a password.
 *
 * <p>During a registry outage the worker must keep its other tables flowing, so a lookup is
 * bounded: it never holds its caller longer than {@link SchemaRegistrySettings#timeout} (all
 * attempts and backoffs included); at most one request per schema id is in flight (concurrent
 * callers wait for it); and an id whose lookup just failed transiently is not asked again for
 * {@link Limits#failureBackoff} — callers get the failure again, as retryable, at once.
 *
 * <p>Thread-safe: one client can serve every subscription of a worker that uses the same registry.
 */
public final class SchemaRegistryClient {
  private static final Logger log = LoggerFactory.getLogger(SchemaRegistryClient.class);

  static final String ACCEPT =
      "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";

  /**
   * How hard the client tries and how much it remembers.
   *
   * @param attempts how many times a transiently failing request is tried within the timeout (at least 1)
   * @param backoff the wait before the second attempt; it doubles for each further one
   * @param failureBackoff how long an id whose lookup failed transiently is answered with that
   *     failure without asking the registry
   * @param cacheSize how many schemas are kept (least recently used first out)
   */
  public record Limits(int attempts, Duration backoff, Duration failureBackoff, int cacheSize) {
    public static final Limits DEFAULT = new Limits(3, Duration.ofMillis(250), Duration.ofSeconds(5), 4096);

    public Limits {
      attempts = Math.max(1, attempts);
      cacheSize = Math.max(1, cacheSize);
    }
  }

  private final SchemaRegistrySettings settings;
  private final String baseUrl;
  private final String authorization;
  private final HttpClient http;
  private final Duration timeout;
  private final Limits limits;
  private final Clock clock;
  private final ObjectMapper mapper = new ObjectMapper();
  private final Map<Integer, Schema> byId;
  /** The one lookup in flight per id; other callers wait for it. */
  private final Map<Integer, CompletableFuture<Schema>> inFlight = new ConcurrentHashMap<>();
  /** Ids whose last lookup failed transiently, with the failure and until when it stands. */
  private final Map<Integer, RecentFailure> recentFailures = new ConcurrentHashMap<>();

  private record RecentFailure(RetryableException failure, long untilMillis) {}

  public SchemaRegistryClient(SchemaRegistrySettings settings) {
    this(settings, Limits.DEFAULT, Clock.systemUTC());
  }

  /**
   * @param clock decides when a failed id may be asked again (tests move it)
   * @throws io.lakesink.error.ConfigurationException when the trust store cannot be read
   */
  public SchemaRegistryClient(SchemaRegistrySettings settings, Limits limits, Clock clock) {
    this.settings = settings;
    this.baseUrl = settings.baseUrl();
    this.timeout = settings.timeout();
    this.limits = limits;
    this.clock = clock;
    this.byId = Collections.synchronizedMap(new LruCache<>(limits.cacheSize()));
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
   * @throws RetryableException when the registry could not be reached or failed, now or less than
   *     {@link Limits#failureBackoff} ago; asking again later may succeed
   */
  public Schema schemaById(int id) throws DecodeException {
    Schema cached = byId.get(id);
    if (cached != null) {
      return cached;
    }
    throwIfFailedRecently(id);
    CompletableFuture<Schema> mine = new CompletableFuture<>();
    CompletableFuture<Schema> running = inFlight.putIfAbsent(id, mine);
    if (running != null) {
      return await(running, id);
    }
    try {
      // Another caller may have finished between the checks above and taking the slot.
      Schema schema = byId.get(id);
      if (schema == null) {
        throwIfFailedRecently(id);
        schema = fetch(id);
        byId.put(id, schema);
        recentFailures.remove(id);
      }
      mine.complete(schema);
      return schema;
    } catch (RetryableException e) {
      rememberFailure(id, e);
      mine.completeExceptionally(e);
      throw e;
    } catch (DecodeException | RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      inFlight.remove(id, mine);
    }
  }

  private void rememberFailure(int id, RetryableException e) {
    long now = clock.millis();
    if (recentFailures.size() >= limits.cacheSize()) {
      // Records cycling through ids during an outage must not grow this without end.
      recentFailures.values().removeIf(f -> now >= f.untilMillis());
      if (recentFailures.size() >= limits.cacheSize()) {
        recentFailures.clear();
      }
    }
    recentFailures.put(id, new RecentFailure(e, now + limits.failureBackoff().toMillis()));
  }

  private void throwIfFailedRecently(int id) {
    RecentFailure recent = recentFailures.get(id);
    if (recent == null) {
      return;
    }
    if (clock.millis() >= recent.untilMillis()) {
      recentFailures.remove(id, recent);
      return;
    }
    throw new RetryableException(
        recent.failure().getMessage() + "; not asking again for schema id " + id + " within "
            + limits.failureBackoff().toMillis() + " ms of that failure",
        recent.failure());
  }

  /** Waits for another caller's lookup of the same id, as long as a lookup may take. */
  private Schema await(CompletableFuture<Schema> running, int id) throws DecodeException {
    try {
      return running.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof DecodeException d) {
        throw new DecodeException(d.getMessage(), d);
      }
      if (cause instanceof RetryableException r) {
        throw new RetryableException(r.getMessage(), r);
      }
      if (cause instanceof ConfigurationException c) {
        throw new ConfigurationException(c.getMessage(), c);
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException("schema lookup failed unexpectedly", cause); // a bug, not the record's fault
    } catch (TimeoutException e) {
      throw new RetryableException(
          "The schema registry at " + baseUrl + " did not give schema id " + id + " within " + timeout.toMillis() + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetryableException("Interrupted while waiting for schema id " + id + " from " + baseUrl, e);
    }
  }

  private Schema fetch(int id) throws DecodeException {
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
    try {
      // The registry validated the schema when it was registered: do not refuse it here over
      // a name or default a stricter parser dislikes.
      return new Schema.Parser(NameValidator.NO_VALIDATION).setValidateDefaults(false).parse(text.textValue());
    } catch (AvroRuntimeException | IllegalArgumentException e) { // SchemaParseException, duplicate fields, …
      throw new DecodeException(
          "schema id " + id + " at " + baseUrl + " is not a valid Avro schema (" + e.getMessage() + ")", e);
    }
  }

  private JsonNode get(String path, int id) throws DecodeException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .header("Accept", ACCEPT)
        .GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = null;
    Throwable lastCause = null;
    RetryPolicy retries = new RetryPolicy(limits.backoff(), timeout.compareTo(limits.backoff()) < 0 ? limits.backoff() : timeout,
        limits.attempts(), 0.25);
    int attempt = 0;
    while (attempt < limits.attempts()) {
      if (attempt > 0) {
        long wait = retries.delay(attempt, ThreadLocalRandom.current()).toMillis();
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= wait) {
          break; // no time left for another attempt within the timeout
        }
        log.warn("Schema registry {}: GET {} failed ({}); retrying in {} ms", baseUrl, path, last, wait);
        sleep(wait, path);
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        break;
      }
      attempt++;
      HttpResponse<byte[]> response;
      CompletableFuture<HttpResponse<byte[]>> sent =
          http.sendAsync(request.timeout(Duration.ofNanos(remaining)).build(), HttpResponse.BodyHandlers.ofByteArray());
      try {
        // The request timeout alone does not bound connecting; waiting on the future does.
        response = sent.get(remaining, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        sent.cancel(true);
        last = "no answer, timed out after " + timeout.toMillis() + " ms";
        lastCause = e;
        break;
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          last = describe(io);
          lastCause = io;
          continue;
        }
        throw new IllegalStateException("GET " + path + " at " + baseUrl + " failed unexpectedly", e.getCause());
      } catch (InterruptedException e) {
        sent.cancel(true);
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
        // Not this record's fault: every record needs the registry. A worker-level fault.
        throw new ConfigurationException(
            "The schema registry at " + baseUrl + " refused access to schema id " + id + " (HTTP " + status
                + error.suffix() + "): check schema_registry.username and schema_registry.password");
      }
      throw new DecodeException(
          "the schema registry at " + baseUrl + " refused GET " + path + " (HTTP " + status + error.suffix() + ")");
    }
    throw new RetryableException(
        "The schema registry at " + baseUrl + " could not give schema id " + id + " after " + attempt
            + (attempt == 1 ? " attempt" : " attempts") + " within " + timeout.toMillis() + " ms (last: " + last + ")",
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

  /** The failure's class and message, and its cause's when it has no message of its own. */
  private static String describe(IOException e) {
    String s = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    Throwable cause = e.getCause();
    if (e.getMessage() == null && cause != null) {
      s += " (" + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")";
    }
    return s;
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

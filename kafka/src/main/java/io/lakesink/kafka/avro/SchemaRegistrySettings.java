package io.lakesink.kafka.avro;

import io.lakesink.error.Errors;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

/**
 * Where a Confluent-compatible schema registry is and how to reach it (the {@code schema_registry}
 * keys of a subscription).
 *
 * @param url base URL, {@code http://host:8081} or {@code https://…}; a path prefix is kept
 *     (Apicurio's compatibility endpoint, {@code …/apis/ccompat/v7})
 * @param username basic-auth user, or null
 * @param password basic-auth password, or null; never shown by {@link #toString()}
 * @param trustStorePath PKCS12 or JKS trust store for HTTPS, or null for the JVM's default trust
 * @param trustStorePassword the trust store's password, or null; never shown
 * @param allowInsecureHttp whether basic-auth credentials may be sent over plain http (a local
 *     emulator); without it, credentials require https ({@code schema_registry.allow_insecure_http})
 * @param timeout the longest one schema lookup may hold a record, all retries included
 *     ({@code schema_registry.timeout}); null for {@link #DEFAULT_TIMEOUT}
 */
public record SchemaRegistrySettings(
    String url,
    String username,
    String password,
    String trustStorePath,
    String trustStorePassword,
    boolean allowInsecureHttp,
    Duration timeout) {

  /** Long enough for a registry across a WAN, short enough that an outage does not stall the worker. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  /** A lookup that may take longer holds the consumer loop too long (Kafka's poll interval, shutdown). */
  public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

  /** Checks the settings, naming the YAML key of whatever is wrong. */
  public SchemaRegistrySettings {
    if (url == null || url.isBlank()) {
      throw Errors.missing("schema_registry.url", "the schema registry's URL, e.g. http://registry:8081");
    }
    url = url.strip();
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw Errors.invalid("schema_registry.url", "is not a URL", "write it as http://host:port or https://host:port");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw Errors.invalid("schema_registry.url", "is not an http(s) URL", "write it as http://host:port or https://host:port");
    }
    if (uri.getRawUserInfo() != null) {
      throw Errors.invalid(
          "schema_registry.url", "carries credentials", "set schema_registry.username and schema_registry.password instead");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw Errors.invalid("schema_registry.url", "has a query or fragment", "give the registry's base URL only");
    }
    username = blankToNull(username);
    password = blankToNull(password);
    if (username == null && password != null) {
      throw Errors.invalid("schema_registry.password", "is set without schema_registry.username", "set both or neither");
    }
    if (username != null && password == null) {
      throw Errors.invalid("schema_registry.username", "is set without schema_registry.password", "set both or neither");
    }
    trustStorePath = blankToNull(trustStorePath);
    trustStorePassword = blankToNull(trustStorePassword);
    if (trustStorePath == null && trustStorePassword != null) {
      throw Errors.invalid(
          "schema_registry.trust_store_password", "is set without schema_registry.trust_store", "set the trust store's path too");
    }
    if (trustStorePath != null && !scheme.equals("https")) {
      throw Errors.invalid("schema_registry.trust_store", "is set but schema_registry.url is not https", "use an https URL");
    }
    if (username != null && scheme.equals("http") && !allowInsecureHttp) {
      // Basic auth over http sends the password in clear text to anyone on the path.
      throw Errors.invalid(
          "schema_registry.url",
          "is plain http while schema_registry.username and password are set, which would send the password"
              + " unencrypted",
          "use an https URL, or set schema_registry.allow_insecure_http: true for a local emulator");
    }
    if (timeout == null) {
      timeout = DEFAULT_TIMEOUT;
    }
    if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw Errors.invalid(
          "schema_registry.timeout", "is " + timeout.toMillis() + " ms", "give a duration above 0 and at most 60s, e.g. 5s");
    }
  }

  /** Settings with the default timeout that refuse credentials over plain http. */
  public SchemaRegistrySettings(
      String url, String username, String password, String trustStorePath, String trustStorePassword) {
    this(url, username, password, trustStorePath, trustStorePassword, false, null);
  }

  /** Settings for an unauthenticated registry. */
  public static SchemaRegistrySettings of(String url) {
    return new SchemaRegistrySettings(url, null, null, null, null);
  }

  /** These settings with another lookup timeout. */
  public SchemaRegistrySettings withTimeout(Duration timeout) {
    return new SchemaRegistrySettings(url, username, password, trustStorePath, trustStorePassword, allowInsecureHttp, timeout);
  }

  /** The URL without a trailing slash. */
  public String baseUrl() {
    String u = url;
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    return u;
  }

  @Override
  public String toString() {
    return "SchemaRegistrySettings[url=" + url
        + ", username=" + username
        + ", password=" + (password == null ? "null" : "****")
        + ", trustStorePath=" + trustStorePath
        + ", trustStorePassword=" + (trustStorePassword == null ? "null" : "****")
        + ", allowInsecureHttp=" + allowInsecureHttp
        + ", timeout=" + timeout + "]";
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}

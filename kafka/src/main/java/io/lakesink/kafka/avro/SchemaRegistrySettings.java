package io.lakesink.kafka.avro;

import io.lakesink.error.Errors;
import java.net.URI;
import java.net.URISyntaxException;

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
 */
public record SchemaRegistrySettings(
    String url, String username, String password, String trustStorePath, String trustStorePassword) {

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
  }

  /** Settings for an unauthenticated registry. */
  public static SchemaRegistrySettings of(String url) {
    return new SchemaRegistrySettings(url, null, null, null, null);
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
        + ", trustStorePassword=" + (trustStorePassword == null ? "null" : "****") + "]";
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}

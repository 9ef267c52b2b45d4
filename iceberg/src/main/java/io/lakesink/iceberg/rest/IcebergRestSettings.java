package io.lakesink.iceberg.rest;

import io.lakesink.error.ConfigurationException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.ResourcePaths;
import org.apache.iceberg.rest.auth.AuthProperties;
import org.apache.iceberg.rest.auth.OAuth2Properties;

/**
 * One {@code catalogs.<name>} block of {@code type: iceberg_rest}: where the Iceberg REST catalog
 * is and how lakesink signs in (OAuth2 client credentials, a bearer token, or nothing for a local
 * server). The secrets are never part of {@link #toString}.
 *
 * @param name the catalog's name in lakesink's configuration
 * @param namespace where this catalog registers the tables of its subscriptions ({@code a.b} for
 *     a nested namespace)
 */
public record IcebergRestSettings(
    String name, String uri, String warehouse, String namespace, String clientId, String clientSecret,
    String oauth2ServerUri, String scope, String token) {

  /** The keys of an {@code iceberg_rest} block besides {@code type}. */
  public static final List<String> KEYS =
      List.of("uri", "warehouse", "namespace", "client_id", "client_secret", "oauth2_server_uri", "scope", "token");

  /** Reads and checks the block's keys ({@code settings} as the configuration holds them). */
  public static IcebergRestSettings fromConfig(String name, Map<String, String> settings) {
    String at = "catalogs." + name + ".";
    String uri = settings.get("uri");
    if (uri == null || uri.isBlank()) {
      throw new ConfigurationException(at + "uri is missing: set it to the Iceberg REST catalog's base URL, without /v1"
          + " (e.g. https://catalog.example.com/api/catalog).");
    }
    URI parsed;
    try {
      parsed = URI.create(uri.strip());
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(at + "uri is not a URL: " + e.getMessage() + ". Write it as https://host[:port][/path].");
    }
    if (!"https".equals(parsed.getScheme()) && !"http".equals(parsed.getScheme())) {
      throw new ConfigurationException(at + "uri must start with https:// or http://; write the catalog's base URL.");
    }
    String namespace = settings.get("namespace");
    if (namespace == null || namespace.isBlank() || namespace.startsWith(".") || namespace.endsWith(".") || namespace.contains("..")) {
      throw new ConfigurationException(at + "namespace " + (namespace == null ? "is missing" : "'" + namespace + "' is not a namespace")
          + ": name the namespace this catalog registers tables in (levels separated by periods, e.g. lakesink or bronze.sales).");
    }
    String clientId = blankAsNull(settings.get("client_id"));
    String clientSecret = blankAsNull(settings.get("client_secret"));
    String token = blankAsNull(settings.get("token"));
    if ((clientId == null) != (clientSecret == null)) {
      throw new ConfigurationException(at + (clientId == null ? "client_id" : "client_secret") + " is missing: OAuth2 client"
          + " credentials need both client_id and client_secret (or use token for a bearer token).");
    }
    if (clientId != null && token != null) {
      throw new ConfigurationException(at + "token and client_id are both set: use OAuth2 client credentials"
          + " (client_id, client_secret) or a bearer token (token), not both.");
    }
    String oauth2ServerUri = blankAsNull(settings.get("oauth2_server_uri"));
    String scope = blankAsNull(settings.get("scope"));
    if (clientId == null && (oauth2ServerUri != null || scope != null)) {
      throw new ConfigurationException(at + (oauth2ServerUri != null ? "oauth2_server_uri" : "scope")
          + " only applies with OAuth2 client credentials: set client_id and client_secret, or remove it.");
    }
    return new IcebergRestSettings(name, uri.strip(), blankAsNull(settings.get("warehouse")), namespace.strip(), clientId,
        clientSecret, oauth2ServerUri, scope, token);
  }

  private static String blankAsNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  public Namespace icebergNamespace() {
    return Namespace.of(namespace.split("\\."));
  }

  /** The properties Iceberg's REST client is initialized with (they hold the secrets: never logged). */
  Map<String, String> clientProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(CatalogProperties.URI, uri);
    if (warehouse != null) {
      p.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    }
    if (clientId != null) {
      p.put(AuthProperties.AUTH_TYPE, AuthProperties.AUTH_TYPE_OAUTH2);
      p.put(OAuth2Properties.CREDENTIAL, clientId + ":" + clientSecret);
      // Iceberg still falls back to the catalog's own /v1/oauth/tokens, but warns that the fallback
      // goes away in a later release: lakesink names that default itself, so it keeps working.
      p.put(OAuth2Properties.OAUTH2_SERVER_URI,
          oauth2ServerUri != null ? oauth2ServerUri : RESTUtil.resolveEndpoint(uri, ResourcePaths.tokens()));
      if (scope != null) {
        p.put(OAuth2Properties.SCOPE, scope);
      }
    } else if (token != null) {
      p.put(AuthProperties.AUTH_TYPE, AuthProperties.AUTH_TYPE_OAUTH2);
      p.put(OAuth2Properties.TOKEN, token);
      // Where Iceberg would refresh the token (its default, named for the same reason as above).
      p.put(OAuth2Properties.OAUTH2_SERVER_URI, RESTUtil.resolveEndpoint(uri, ResourcePaths.tokens()));
    } else {
      p.put(AuthProperties.AUTH_TYPE, AuthProperties.AUTH_TYPE_NONE);
    }
    return p;
  }

  /** For logs and status: where, never the secrets. */
  public String describe() {
    return "Iceberg REST catalog '" + name + "' at " + uri + (warehouse == null ? "" : " (warehouse " + warehouse + ")")
        + ", namespace " + namespace;
  }

  @Override
  public String toString() {
    return "IcebergRestSettings[name=" + name + ", uri=" + uri + ", warehouse=" + warehouse + ", namespace=" + namespace
        + ", auth=" + (clientId != null ? "oauth2 client " + clientId : token != null ? "bearer token" : "none") + "]";
  }
}

package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unity Catalog REST 2.1 calls: adds the token, and when the server answers 401 renews the token
 * once and tries again (tokens can be revoked or expire early); a second 401 is a configuration
 * problem. Status codes other than 401 are left to the caller, which knows what they mean.
 */
final class UnityApi {
  static final String BASE_PATH = "/api/2.1/unity-catalog";
  private static final Logger LOG = LoggerFactory.getLogger(UnityApi.class);

  private final UnitySettings settings;
  private final HttpSender sender;
  private final Credentials credentials;
  private final Duration timeout;
  private final Redactor redactor;

  UnityApi(UnitySettings settings, HttpSender sender, Credentials credentials, Duration timeout, Redactor redactor) {
    this.settings = settings;
    this.sender = sender;
    this.credentials = credentials;
    this.timeout = timeout;
    this.redactor = redactor;
  }

  /** @param path below {@code /api/2.1/unity-catalog}, segments already encoded */
  ApiResponse get(String path) {
    return call("GET", path, null);
  }

  ApiResponse post(String path, JsonNode body) {
    return call("POST", path, body);
  }

  ApiResponse delete(String path) {
    return call("DELETE", path, null);
  }

  ApiResponse patch(String path, JsonNode body) {
    return call("PATCH", path, body);
  }

  /**
   * A call outside Unity Catalog's base path (SQL warehouses, statements, permissions), with the
   * same token, renewal and throttling.
   *
   * @param apiPath from the workspace root, e.g. {@code /api/2.0/sql/statements}
   */
  ApiResponse workspace(String method, String apiPath, JsonNode body) {
    return send(method, apiPath, apiPath, body);
  }

  /** Makes sure a token can be had now (for the connection test). */
  void authenticate() {
    credentials.renew();
    credentials.authorization();
  }

  Credentials credentials() {
    return credentials;
  }

  /** One path segment, percent-encoded ({@code main.bronze.orders} stays as it is). */
  static String segment(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private ApiResponse call(String method, String path, JsonNode body) {
    return send(method, BASE_PATH + path, path, body);
  }

  /** @param shown the path as messages show it (Unity Catalog paths without the base) */
  private ApiResponse send(String method, String path, String shown, JsonNode body) {
    String what = method + " " + shown;
    HttpReply reply = sender.send(() -> request(method, path, body), what);
    if (reply.status() == 401) {
      ApiError first = ApiError.parse(401, reply.body(), redactor);
      if (!settings.authenticated()) {
        throw UnityErrors.localServerRequiresAuthentication(settings.workspaceUrl(), first);
      }
      LOG.info("{} answered {}; fetching a new OAuth token and trying once more", what, first.summary());
      credentials.renew();
      reply = sender.send(() -> request(method, path, body), what);
      if (reply.status() == 401) {
        throw UnityErrors.freshTokenRejected(
            settings.clientId(), settings.workspaceUrl(), ApiError.parse(401, reply.body(), redactor));
      }
    }
    return ApiResponse.of(reply, redactor);
  }

  private HttpRequest request(String method, String path, JsonNode body) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(settings.workspaceUrl() + path))
            .timeout(timeout)
            .header("Accept", "application/json")
            .header("User-Agent", "lakesink");
    credentials.authorization().ifPresent(value -> builder.header("Authorization", value));
    if (body == null) {
      return builder.method(method, HttpRequest.BodyPublishers.noBody()).build();
    }
    return builder
        .header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(Json.write(body)))
        .build();
  }
}

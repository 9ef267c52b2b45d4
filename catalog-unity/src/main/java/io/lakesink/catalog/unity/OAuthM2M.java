package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Databricks OAuth machine-to-machine: the service principal's client id and secret are exchanged
 * for an hour-long access token at the workspace token endpoint (found through OAuth discovery,
 * {@code /oidc/v1/token} otherwise). The token is cached and renewed shortly before it expires.
 */
final class OAuthM2M implements Credentials {
  static final String DISCOVERY_PATH = "/oidc/.well-known/oauth-authorization-server";
  static final String FALLBACK_TOKEN_PATH = "/oidc/v1/token";
  /** Used when the token response has no expires_in; Databricks tokens last one hour. */
  private static final Duration DEFAULT_LIFETIME = Duration.ofHours(1);
  private static final Duration RENEW_MARGIN = Duration.ofMinutes(5);
  private static final Logger LOG = LoggerFactory.getLogger(OAuthM2M.class);

  private final UnitySettings settings;
  private final HttpSender sender;
  private final Clock clock;
  private final Duration timeout;
  private final Redactor redactor;
  private URI tokenEndpoint;
  private boolean discovered;
  private AccessToken token;

  OAuthM2M(UnitySettings settings, HttpSender sender, ClientEnvironment environment, Redactor redactor) {
    this.settings = settings;
    this.sender = sender;
    this.clock = environment.clock();
    this.timeout = environment.requestTimeout();
    this.redactor = redactor;
  }

  @Override
  public synchronized Optional<String> authorization() {
    if (token == null || !clock.instant().isBefore(token.renewAt())) {
      token = fetch();
    }
    return Optional.of("Bearer " + token.value());
  }

  @Override
  public synchronized void renew() {
    token = null;
  }

  @Override
  public String describe() {
    return "OAuth M2M as service principal " + settings.clientId();
  }

  /** The token endpoint in use, discovering it on first use. */
  synchronized URI tokenEndpoint() {
    if (tokenEndpoint == null) {
      tokenEndpoint = discover();
    }
    return tokenEndpoint;
  }

  private URI discover() {
    URI workspace = settings.workspace();
    URI fallback = URI.create(settings.workspaceUrl() + FALLBACK_TOKEN_PATH);
    URI wellKnown = URI.create(settings.workspaceUrl() + DISCOVERY_PATH);
    HttpReply reply =
        sender.send(
            () -> HttpRequest.newBuilder(wellKnown).timeout(timeout).header("Accept", "application/json").GET().build(),
            "GET " + DISCOVERY_PATH);
    String endpoint = reply.ok() ? Json.text(Json.parse(reply.body()), "token_endpoint") : null;
    if (endpoint != null) {
      try {
        URI uri = URI.create(endpoint);
        // The secret is sent there: only over https, or over http when it stays on this host.
        if ("https".equalsIgnoreCase(uri.getScheme()) || ("http".equalsIgnoreCase(uri.getScheme()) && UnitySettings.isLoopback(uri))) {
          discovered = true;
          return uri;
        }
      } catch (IllegalArgumentException e) {
        // fall through to the well-known path
      }
      LOG.warn("OAuth discovery at {} returned an unusable token endpoint; using {}", workspace, fallback);
      return fallback;
    }
    LOG.info("OAuth discovery at {} answered {}; using {}", workspace, reply.status(), fallback);
    return fallback;
  }

  private AccessToken fetch() {
    URI endpoint = tokenEndpoint();
    String basic =
        Base64.getEncoder()
            .encodeToString((settings.clientId() + ":" + settings.clientSecret()).getBytes(StandardCharsets.UTF_8));
    String form = "grant_type=client_credentials&scope=" + URLEncoder.encode("all-apis", StandardCharsets.UTF_8);
    Instant requested = clock.instant();
    HttpReply reply =
        sender.send(
            () ->
                HttpRequest.newBuilder(endpoint)
                    .timeout(timeout)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .header("Accept", "application/json")
                    .header("Authorization", "Basic " + basic)
                    .POST(HttpRequest.BodyPublishers.ofString(form))
                    .build(),
            "POST " + endpoint.getPath() + " (OAuth token)");
    if (!reply.ok()) {
      throw refusal(endpoint, reply);
    }
    JsonNode body = Json.parse(reply.body());
    String value = Json.text(body, "access_token");
    if (value == null || value.isBlank()) {
      throw UnityErrors.invalidTokenResponse(endpoint);
    }
    redactor.addToken(value);
    long seconds = body.path("expires_in").asLong(0);
    Duration lifetime = seconds > 0 ? Duration.ofSeconds(seconds) : DEFAULT_LIFETIME;
    Duration margin = lifetime.dividedBy(4).compareTo(RENEW_MARGIN) < 0 ? lifetime.dividedBy(4) : RENEW_MARGIN;
    AccessToken fresh = new AccessToken(value, requested.plus(lifetime), requested.plus(lifetime).minus(margin));
    LOG.debug("OAuth token for service principal {} valid until {}", settings.clientId(), fresh.expiresAt());
    return fresh;
  }

  private RuntimeException refusal(URI endpoint, HttpReply reply) {
    ApiError error = ApiError.parse(reply.status(), reply.body(), redactor);
    if (reply.status() == 404 && !discovered) {
      return UnityErrors.noTokenEndpoint(settings.workspaceUrl(), endpoint);
    }
    if (reply.status() >= 500) {
      return UnityErrors.tokenEndpointFailed(endpoint, error);
    }
    return UnityErrors.credentialsRefused(settings.clientId(), endpoint, error);
  }
}

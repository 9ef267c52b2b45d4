package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one SQL statement on the configured warehouse through the Statement Execution API 2.0
 * ({@code POST /api/2.0/sql/statements}, then {@code GET …/{id}} until it ends), with the Unity
 * Catalog client's OAuth token, token renewal and throttling (429/503 with Retry-After). A
 * statement still running at the deadline is cancelled ({@code POST …/{id}/cancel}), so nothing is
 * left running on the warehouse behind a worker that gave up on it.
 *
 * <p>Throws what the HTTP layer throws (retryable throttling or outages, configuration errors for
 * refused tokens); everything the warehouse or the statement answered comes back as an {@link
 * Outcome}.
 */
final class StatementExecution {
  private static final Logger LOG = LoggerFactory.getLogger(StatementExecution.class);
  static final String PATH = "/api/2.0/sql/statements";
  /** The longest a statement may run: a materialized view's creation refreshes it once. */
  static final Duration DEADLINE = Duration.ofMinutes(30);
  private static final Duration FIRST_POLL = Duration.ofSeconds(1);
  private static final Duration LONGEST_POLL = Duration.ofSeconds(10);
  private static final Set<String> RUNNING = Set.of("PENDING", "RUNNING");

  /** What a statement came to. */
  sealed interface Outcome {
    record Succeeded(String statementId, JsonNode result) implements Outcome {}

    /**
     * @param warehouseRefused the warehouse would not take the work (no CAN USE, no SQL
     *     entitlement, unknown or stopped warehouse), as opposed to the statement failing
     */
    record Failed(String statementId, String error, boolean warehouseRefused) implements Outcome {}
  }

  private final UnitySettings settings;
  private final UnityApi api;
  private final ClientEnvironment environment;

  StatementExecution(UnitySettings settings, UnityApi api, ClientEnvironment environment) {
    this.settings = settings;
    this.api = api;
    this.environment = environment;
  }

  String warehouseId() {
    return settings.warehouseId();
  }

  Outcome execute(String statement) {
    ObjectNode body = Json.object();
    body.put("warehouse_id", settings.warehouseId());
    body.put("statement", statement);
    body.put("catalog", settings.catalog());
    body.put("schema", settings.schema());
    body.put("wait_timeout", waitTimeout());
    body.put("on_wait_timeout", "CONTINUE");
    ApiResponse submitted = api.workspace("POST", PATH, body);
    if (!submitted.ok()) {
      return refused(submitted);
    }
    String id = Json.text(submitted.body(), "statement_id");
    JsonNode reply = submitted.body();
    Instant deadline = environment.clock().instant().plus(DEADLINE);
    Duration wait = FIRST_POLL;
    while (RUNNING.contains(state(reply))) {
      if (!environment.clock().instant().isBefore(deadline)) {
        cancel(id);
        return new Outcome.Failed(id, UnityErrors.statementTimedOut(settings.warehouseId(), DEADLINE), false);
      }
      pause(wait);
      wait = wait.multipliedBy(2).compareTo(LONGEST_POLL) > 0 ? LONGEST_POLL : wait.multipliedBy(2);
      ApiResponse polled = api.workspace("GET", PATH + "/" + UnityApi.segment(id), null);
      if (!polled.ok()) {
        if (polled.status() >= 500) {
          continue; // the statement runs on; the answer about it failed
        }
        // The statement is gone (expired, closed) or no longer ours to see: not the warehouse refusing.
        return new Outcome.Failed(id, UnityErrors.statementLost(settings.warehouseId(), id, polled.error()), false);
      }
      reply = polled.body();
    }
    String state = state(reply);
    if ("SUCCEEDED".equals(state)) {
      return new Outcome.Succeeded(id, reply.path("result"));
    }
    JsonNode error = reply.path("status").path("error");
    String code = Json.text(error, "error_code");
    String message = Json.text(error, "message");
    LOG.debug("Statement {} on warehouse {} ended {}: {} {}", id, settings.warehouseId(), state, code, message);
    return new Outcome.Failed(id, UnityErrors.statementFailed(settings.warehouseId(), state, code, message),
        mentionsWarehouse(message));
  }

  /** Sets the HTTP request's wait below the client's request timeout, so the server answers first. */
  private String waitTimeout() {
    long seconds = Math.min(50, environment.requestTimeout().toSeconds() - 5);
    return (seconds < 5 ? 0 : seconds) + "s";
  }

  private Outcome refused(ApiResponse r) {
    ApiError error = r.error();
    if (r.status() >= 500) {
      throw UnityErrors.serverError("to run a statement on warehouse " + settings.warehouseId(), error);
    }
    // 403: no CAN USE or no Databricks SQL access; 404: no such warehouse; 400 about the warehouse: stopped or deleted.
    boolean warehouse = r.status() == 403 || r.status() == 404 || mentionsWarehouse(error.message());
    if (!warehouse) {
      return new Outcome.Failed(null, UnityErrors.statementRejected(settings.warehouseId(), error), false);
    }
    return new Outcome.Failed(null, UnityErrors.warehouseRefused(settings.warehouseId(), failuresPrincipal(), error), true);
  }

  private String failuresPrincipal() {
    return settings.clientId() != null ? settings.clientId() : "<principal>";
  }

  private void cancel(String id) {
    try {
      api.workspace("POST", PATH + "/" + UnityApi.segment(id) + "/cancel", Json.object());
    } catch (RuntimeException e) {
      LOG.warn("Could not cancel statement {} on warehouse {}: {}", id, settings.warehouseId(), e.getMessage());
    }
  }

  private void pause(Duration wait) {
    try {
      environment.sleeper().sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw UnityErrors.interrupted("waiting for a statement on warehouse " + settings.warehouseId(), e);
    }
  }

  private static String state(JsonNode reply) {
    String state = Json.text(reply.path("status"), "state");
    return state == null ? "UNKNOWN" : state;
  }

  private static boolean mentionsWarehouse(String message) {
    return message != null && message.toLowerCase(java.util.Locale.ROOT).contains("warehouse");
  }
}

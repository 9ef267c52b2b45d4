package io.lakesink.delivery;

import io.lakesink.maintenance.MaintenanceRunner;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's delivery as {@code /status} shows it.
 *
 * @param lastVersion the Delta version of the last commit this worker made, or -1
 * @param lastCommitAt when that commit was made, or null
 * @param rowsDelivered rows committed by this worker since it started
 * @param warnings problems that do not stop delivery but should be fixed (a primary key that
 *     looks wrong, an optimization that keeps giving up), each saying what to do
 * @param maintenance the table's file count and optimizations given up in a row
 * @param waitingOn the outside services this table waits on because they do not answer
 *     ({@code kafka}, {@code schema_registry}, {@code storage}); empty while nothing is down
 * @param currentStateTable the current-state table kept from this changelog ({@code
 *     current_state.object: table}): its state, the changelog version it reflects and its lag;
 *     null without one
 */
public record TableStatus(
    String table,
    String topic,
    String mode,
    String state,
    String reason,
    Instant since,
    long lastVersion,
    Instant lastCommitAt,
    long rowsDelivered,
    int bufferedEvents,
    List<String> warnings,
    MaintenanceRunner.State maintenance,
    List<String> waitingOn,
    Map<String, Object> currentStateTable) {

  public TableStatus(
      String table, String topic, String mode, String state, String reason, Instant since, long lastVersion,
      Instant lastCommitAt, long rowsDelivered, int bufferedEvents, List<String> warnings,
      MaintenanceRunner.State maintenance, List<String> waitingOn) {
    this(table, topic, mode, state, reason, since, lastVersion, lastCommitAt, rowsDelivered, bufferedEvents, warnings,
        maintenance, waitingOn, null);
  }

  /** This status with the kept current-state table's progress. */
  public TableStatus withCurrentStateTable(Map<String, Object> progress) {
    return new TableStatus(table, topic, mode, state, reason, since, lastVersion, lastCommitAt, rowsDelivered,
        bufferedEvents, warnings, maintenance, waitingOn, progress);
  }

  /**
   * This table waiting on a service that does not answer: {@code degraded}, with the outage's
   * reason before any it had (a catalog registration that lags), since the earlier of the two.
   * A quarantined table stays as it is: it reads nothing, so it waits on nothing, and its
   * reason is the one an operator must act on. The state returns to what it was by itself, since
   * each status is built afresh from what is still down.
   */
  public TableStatus waitingOn(String service, String outageReason, Instant outageSince) {
    if ("quarantined".equals(state) || waitingOn.contains(service)) {
      return this;
    }
    List<String> services = new java.util.ArrayList<>(waitingOn);
    services.add(service);
    String joined = reason == null ? outageReason : outageReason + "; " + reason;
    Instant earliest = since == null || outageSince.isBefore(since) ? outageSince : since;
    return new TableStatus(table, topic, mode, "degraded", joined, earliest, lastVersion, lastCommitAt, rowsDelivered,
        bufferedEvents, warnings, maintenance, List.copyOf(services), currentStateTable);
  }

  /**
   * The fields under the names {@code /status} uses, in its order; the standalone worker's status
   * and the Kafka Connect plugin's REST extension both show a table this way. Mutable, so a
   * caller can add what it knows besides (consumed events, lag).
   */
  public Map<String, Object> fields() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("table", table);
    m.put("topic", topic);
    m.put("mode", mode);
    m.put("state", state);
    m.put("reason", reason);
    m.put("since", since);
    m.put("last_commit_version", lastVersion < 0 ? null : lastVersion);
    m.put("last_commit_at", lastCommitAt);
    m.put("rows_delivered", rowsDelivered);
    m.put("buffered_events", bufferedEvents);
    m.put("warnings", warnings);
    m.put("files", maintenance.files() < 0 ? null : maintenance.files());
    m.put("optimize_gave_up_in_a_row", maintenance.optimizeGiveUps());
    m.put("waiting_on", waitingOn);
    if (currentStateTable != null) {
      m.put("current_state_table", currentStateTable);
    }
    return m;
  }
}

package io.lakesink.app.status;

import static io.lakesink.app.status.Html.ago;
import static io.lakesink.app.status.Html.esc;
import static io.lakesink.app.status.Html.time;

import io.lakesink.delivery.TableStatus;
import io.lakesink.kafka.WorkerStatus;
import java.time.Instant;
import java.util.Objects;
import java.util.TreeMap;

/** One table's row of the status page's table, and its warnings under it. */
final class TableRow {
  private final WorkerStatus.Subscription sub;
  private final TableStatus t;
  private final Throughput throughput;
  private final Instant now;

  TableRow(WorkerStatus.Subscription sub, Throughput throughput, Instant now) {
    this.sub = sub;
    this.t = sub.table();
    this.throughput = throughput;
    this.now = now;
  }

  void render(StringBuilder out) {
    // The state is a class name too: only the three known words may become one.
    String stateClass = switch (t.state()) {
      case "healthy", "degraded", "quarantined" -> t.state();
      default -> "other";
    };
    out.append("<tr data-table=\"").append(esc(t.table())).append("\" data-state=\"").append(esc(t.state())).append("\">")
        .append("<td><strong>").append(esc(t.table())).append("</strong><div class=\"sub\">").append(esc(t.topic()))
        .append(" · ").append(esc(t.mode())).append("</div>");
    keptTable(out);
    out.append("</td>")
        .append("<td><span class=\"state ").append(stateClass).append("\">").append(esc(t.state())).append("</span>");
    if (t.since() != null) {
      out.append("<div class=\"sub nw\">since ").append(time(t.since())).append("</div>");
    }
    if (t.reason() != null) {
      out.append("<div class=\"reason\">").append(esc(t.reason())).append("</div>");
    }
    if (!t.waitingOn().isEmpty()) {
      out.append("<div class=\"sub\">waiting on ").append(esc(StatusPage.list(t.waitingOn()))).append("</div>");
    }
    // Numbers and times do not wrap: the reason's column takes what width is left.
    out.append("</td><td class=\"nw\">");
    lag(out);
    out.append("</td><td class=\"nw\">");
    lastCommit(out);
    out.append("</td><td class=\"nw\">").append(freshness()).append("</td><td>");
    long[] rows = throughput.rows(t.table());
    out.append(ThroughputChart.svg(rows)).append("<div class=\"sub\">").append(ThroughputChart.caption(rows))
        .append("</div></td></tr>");
    if (!t.warnings().isEmpty()) {
      out.append("<tr class=\"warnings\"><td></td><td colspan=\"5\">");
      t.warnings().forEach(w -> out.append("<div class=\"warn\">⚠ ").append(esc(w)).append("</div>"));
      out.append("</td></tr>");
    }
  }

  /**
   * The current-state table kept from this changelog ({@code current_state.object: table}), under
   * the changelog's name: its own state (a stopped one with its reason: the changelog's state says
   * nothing of it) and how far behind the changelog it is.
   */
  private void keptTable(StringBuilder out) {
    java.util.Map<String, Object> kept = t.currentStateTable();
    if (kept == null) {
      return;
    }
    String state = String.valueOf(kept.get("state"));
    out.append("<div class=\"sub kept\" data-kept-state=\"").append(esc(state)).append("\">current state: table <strong>")
        .append(esc(String.valueOf(kept.get("table")))).append("</strong> · ").append(esc(state));
    Object behind = kept.get("lag_versions");
    if (behind instanceof Number n && n.longValue() > 0) {
      out.append(" · ").append(n.longValue()).append(" versions behind");
    }
    if (Boolean.FALSE.equals(kept.get("registered")) && kept.get("registration_problem") != null) {
      out.append(" · not registered: ").append(esc(String.valueOf(kept.get("registration_problem"))));
    }
    out.append("</div>");
    if (kept.get("reason") != null) {
      out.append("<div class=\"reason\">").append(esc(String.valueOf(kept.get("reason")))).append("</div>");
    }
  }

  private void lag(StringBuilder out) {
    if (sub.lag().isEmpty()) {
      out.append("<span class=\"muted\">no partition assigned</span>");
    }
    // Unknown (null) while the end offset the consumer last saw is stale: shown as such, never guessed.
    new TreeMap<>(sub.lag()).forEach((p, lag) ->
        out.append("<div>p").append(p).append(": ").append(lag == null ? "unknown" : lag).append("</div>"));
    out.append("<div class=\"sub\">").append(t.bufferedEvents()).append(" buffered</div>");
  }

  private void lastCommit(StringBuilder out) {
    if (t.lastCommitAt() == null) {
      out.append("<span class=\"muted\">none yet</span>");
    } else {
      out.append(time(t.lastCommitAt())).append("<div class=\"sub\">version ").append(t.lastVersion());
      long rows = throughput.lastCommitRows(t.table());
      if (rows >= 0) {
        out.append(", ").append(rows).append(" rows");
      }
      out.append("</div>");
    }
    out.append("<div class=\"sub\">").append(t.rowsDelivered()).append(" rows since start</div>");
  }

  /**
   * Time since the last commit. An old commit is only news when something waits: a healthy table
   * with nothing buffered and no lag is caught up, however long ago it last committed.
   */
  private String freshness() {
    boolean caughtUp = "healthy".equals(t.state()) && t.bufferedEvents() == 0 && !sub.lag().isEmpty()
        && sub.lag().values().stream().allMatch(l -> Objects.equals(l, 0L));
    String since = t.lastCommitAt() == null ? "no commit yet"
        : "<strong>" + ago(t.lastCommitAt(), now) + "</strong><div class=\"sub\">since the last commit</div>";
    return since + (caughtUp ? "<div class=\"sub\">caught up</div>" : "");
  }
}

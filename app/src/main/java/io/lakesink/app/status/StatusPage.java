package io.lakesink.app.status;

import static io.lakesink.app.status.Html.ago;
import static io.lakesink.app.status.Html.esc;
import static io.lakesink.app.status.Html.time;

import io.lakesink.delivery.TableStatus;
import io.lakesink.kafka.WorkerStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The worker's status as one HTML page for a browser ({@code GET /}): the same snapshot as
 * {@code /status}, plus each table's recent throughput. Rendered on the server with its style
 * inline and no script, so it works offline and behind any proxy; it reloads itself with a
 * meta refresh. Nothing on it comes from a row: reasons are value-free by construction, and
 * every string is escaped, since table names, reasons and problems quote configuration.
 */
public final class StatusPage {
  static final Duration REFRESH = Duration.ofSeconds(5);
  /** What the release command shows when the worker was not started from a file (tests, the demo). */
  static final String UNKNOWN_CONFIG = "<your config file>";
  private static final String STYLE = """
      body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:1.5em;color:#1f2933}
      h1{font-size:1.4em;margin:0}h2{font-size:1.1em;margin:1.4em 0 .5em}
      .muted{color:#616e7c}.sub{color:#616e7c;font-size:.9em}
      table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.4em .6em;border-bottom:1px solid #e4e7eb}
      th{background:#f5f7fa;font-weight:600}.nw{white-space:nowrap}
      .state{display:inline-block;padding:0 .5em;border-radius:.8em;font-weight:600;color:#fff}
      .healthy{background:#2f8132}.degraded{background:#c27c0e}.quarantined{background:#b42318}.other{background:#616e7c}
      .box{border:1px solid #e4e7eb;border-left:4px solid #b42318;padding:.5em .8em;margin:.5em 0;background:#fffafa}
      .outage{border-left-color:#c27c0e;background:#fffcf5}
      code,pre{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.92em}
      pre{background:#1f2933;color:#f5f7fa;padding:.5em .8em;overflow-x:auto;margin:.4em 0}
      .reason{max-width:36em;overflow-wrap:anywhere}.warn{color:#8d2b0b}
      """;

  private final Throughput throughput;
  private final String configFile;

  /** @param configFile the file the worker was started with, for the release command; null if none */
  public StatusPage(Throughput throughput, Path configFile) {
    this.throughput = throughput;
    this.configFile = configFile == null ? UNKNOWN_CONFIG : Html.shellWord(configFile.toAbsolutePath().normalize().toString());
  }

  public String render(WorkerStatus s, Instant now) {
    boolean starting = s.at().equals(WorkerStatus.STARTING.at());
    StringBuilder out = new StringBuilder(8192)
        .append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta http-equiv=\"refresh\" content=\"").append(REFRESH.toSeconds()).append("\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>lakesink: ").append(esc(summary(s, starting))).append("</title>")
        .append("<style>").append(STYLE).append("</style></head><body>\n")
        .append("<header><h1>lakesink worker</h1><p id=\"summary\">").append(esc(summary(s, starting))).append("</p>")
        .append("<p class=\"muted\">").append(starting ? "No status yet" : "Status of " + time(s.at()))
        .append(", page of ").append(time(now)).append("; refreshes every ").append(REFRESH.toSeconds())
        .append(" s. JSON: <a href=\"status\">/status</a>, <a href=\"metrics\">/metrics</a>.</p>")
        .append(budgetWait(s)).append("</header>\n");
    faults(out, s.faults());
    outages(out, s.outages(), now);
    quarantines(out, s.subscriptions());
    tables(out, s.subscriptions(), now);
    return out.append("</body></html>\n").toString();
  }

  /** How long reading waited for the buffer budget, once it has: a share of the uptime worth a look. */
  private static String budgetWait(WorkerStatus s) {
    if (s.buffersFull().isZero()) {
      return "";
    }
    return String.format(Locale.ROOT, "<p class=\"muted\" id=\"budget\">Reading has waited %.1f s since the worker started"
        + " for its buffers to fit <code>delivery.max_buffer_bytes</code> (back-pressure while flushes are written).</p>",
        s.buffersFull().toMillis() / 1000.0);
  }

  private static String summary(WorkerStatus s, boolean starting) {
    if (starting) {
      return "starting";
    }
    Map<String, Integer> states = new TreeMap<>();
    s.subscriptions().forEach(sub -> states.merge(sub.table().state(), 1, Integer::sum));
    int n = s.subscriptions().size();
    StringBuilder text = new StringBuilder().append(n).append(n == 1 ? " table" : " tables");
    states.forEach((state, count) -> text.append(", ").append(count).append(' ').append(state));
    if (!s.faults().isEmpty()) text.append("; worker fault");
    s.outages().forEach(o -> text.append("; ").append(o.service()).append(" down"));
    return text.toString();
  }

  private static void faults(StringBuilder out, List<String> faults) {
    if (faults.isEmpty()) {
      return;
    }
    out.append("<section id=\"faults\"><h2>Worker faults</h2><p class=\"muted\">Refused credentials or permissions:"
        + " every table waits until they are fixed; retried every 30 s.</p>");
    faults.forEach(f -> out.append("<div class=\"box\">").append(esc(f)).append("</div>"));
    out.append("</section>\n");
  }

  private static void outages(StringBuilder out, List<WorkerStatus.Outage> outages, Instant now) {
    if (outages.isEmpty()) {
      return;
    }
    out.append("<section id=\"outages\"><h2>Outages</h2>");
    for (WorkerStatus.Outage o : outages) {
      out.append("<div class=\"box outage\" data-service=\"").append(esc(o.service())).append("\"><strong>")
          .append(esc(o.service())).append("</strong> does not answer, since ").append(time(o.since()))
          .append(" (").append(ago(o.since(), now)).append(")<div class=\"reason\">").append(esc(o.problem()))
          .append("</div><div class=\"sub\">Waiting: ").append(esc(list(o.tables()))).append(" · partitions ")
          .append(esc(list(o.partitions()))).append("</div></div>");
    }
    out.append("</section>\n");
  }

  private void quarantines(StringBuilder out, List<WorkerStatus.Subscription> subs) {
    List<TableStatus> quarantined = subs.stream().map(WorkerStatus.Subscription::table)
        .filter(t -> "quarantined".equals(t.state())).toList();
    if (quarantined.isEmpty()) {
      return;
    }
    out.append("<section id=\"quarantines\"><h2>Quarantined tables</h2><p class=\"muted\">Fix the cause first:"
        + " released with the cause unchanged, a table is quarantined again at the same record. Changing the"
        + " subscription's mode, key, column mapping or format releases it at the next start.</p>");
    for (TableStatus t : quarantined) {
      out.append("<div class=\"box\" data-table=\"").append(esc(t.table())).append("\"><strong>").append(esc(t.table()))
          .append("</strong> <span class=\"sub\">since ").append(time(t.since())).append("</span><div class=\"reason\">")
          .append(esc(t.reason())).append("</div><pre class=\"release\"><code>").append(esc(releaseCommand(t.table())))
          .append("</code></pre></div>");
    }
    out.append("</section>\n");
  }

  /** The command that releases the table, as {@code lakesink quarantine release} takes it. */
  String releaseCommand(String table) {
    return "bin/lakesink quarantine release --config " + configFile + " --table " + Html.shellWord(table);
  }

  private void tables(StringBuilder out, List<WorkerStatus.Subscription> subs, Instant now) {
    out.append("<section id=\"tables\"><h2>Tables</h2>");
    if (subs.isEmpty()) {
      out.append("<p class=\"muted\">No table yet.</p></section>\n");
      return;
    }
    out.append("<table><thead><tr><th>Table</th><th>State</th><th>Lag</th><th>Last commit</th><th>Freshness</th>"
        + "<th>Throughput</th></tr></thead><tbody>");
    subs.forEach(sub -> new TableRow(sub, throughput, now).render(out));
    out.append("</tbody></table></section>\n");
  }

  static String list(List<String> items) {
    return items.isEmpty() ? "–" : String.join(", ", items);
  }
}

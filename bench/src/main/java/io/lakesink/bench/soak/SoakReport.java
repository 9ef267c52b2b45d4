package io.lakesink.bench.soak;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What one soak did and found.
 *
 * @param logs what the workers' logs say happened
 * @param changes change events fed per topic (tombstones not counted)
 * @param violations empty when every check passed
 */
record SoakReport(
    String storage,
    long seed,
    int kills,
    int stops,
    int unexpectedExits,
    WorkerLogs logs,
    long changes,
    long tombstones,
    long changelogRows,
    int mergeKeys,
    Duration chaos,
    Duration catchUp,
    Duration total,
    List<String> violations) {

  boolean passed() {
    return violations.isEmpty();
  }

  String text() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "soak on %s storage, seed %d: %s%n", storage, seed, passed() ? "PASSED" : "FAILED"));
    sb.append(String.format(Locale.ROOT, "  kill points (SIGKILL)      %d%n", kills));
    sb.append(String.format(Locale.ROOT, "  SIGSTOPs past the poll int. %d%n", stops));
    sb.append(String.format(Locale.ROOT, "  unexpected worker exits    %d%n", unexpectedExits));
    sb.append(String.format(Locale.ROOT, "  ... of a worker that owned partitions %d, that had committed %d%n", logs.killsOwning(), logs.killsAfterCommit()));
    sb.append(String.format(Locale.ROOT, "  assignment rounds          %d (%d partition assignments)%n", logs.assignmentRounds(), logs.assignments()));
    sb.append(String.format(Locale.ROOT, "  fenced commits             %d%n", logs.fencedCommits()));
    sb.append(String.format(Locale.ROOT, "  retried flushes            %d%n", logs.retriedFlushes()));
    sb.append(String.format(Locale.ROOT, "  ERROR lines in worker logs %d%n", logs.errors()));
    logs.firstErrors().forEach(e -> sb.append("    ").append(e, 0, Math.min(e.length(), 400)).append('\n'));
    sb.append(String.format(Locale.ROOT, "  events per topic           %,d changes + %,d tombstones%n", changes, tombstones));
    sb.append(String.format(Locale.ROOT, "  changelog rows read back   %,d%n", changelogRows));
    sb.append(String.format(Locale.ROOT, "  merge table keys           %,d%n", mergeKeys));
    sb.append(String.format(Locale.ROOT, "  duration                   %s (chaos %s, catch-up %s)%n", minutes(total), minutes(chaos), minutes(catchUp)));
    violations.forEach(v -> sb.append("  VIOLATION: ").append(v).append('\n'));
    return sb.toString();
  }

  private static String minutes(Duration d) {
    return String.format(Locale.ROOT, "%d min %02d s", d.toMinutes(), d.toSecondsPart());
  }
}

package io.lakesink.catalog.unity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Whether a registration's columns match ours. Unity Catalog has no call that changes columns,
 * so a difference means delete and register again; this decides when that is needed.
 *
 * <p>Only what the catalog actually reports is compared: a missing type or missing partition
 * indexes (Databricks' readings may differ from the open-source server's) count as a match, so
 * that a registration is never re-created in a loop over a field the catalog does not return.
 */
record ColumnDiff(Verdict verdict, String description) {

  enum Verdict {
    /** Same columns: nothing to do. */
    UP_TO_DATE,
    /**
     * The registration has our columns and more after them: another replica saw a newer schema
     * first. Columns are never dropped, so ours is the stale view; leave it.
     */
    REGISTRATION_IS_NEWER,
    /** Re-register with our columns. */
    STALE
  }

  static ColumnDiff compare(List<RegisteredColumn> ours, List<RegisteredColumn> registered) {
    boolean partitionsReported = registered.stream().anyMatch(c -> c.partitionIndex() != null);
    boolean prefix = registered.size() >= ours.size();
    for (int i = 0; prefix && i < ours.size(); i++) {
      prefix = same(ours.get(i), registered.get(i), partitionsReported);
    }
    if (prefix) {
      return registered.size() == ours.size()
          ? new ColumnDiff(Verdict.UP_TO_DATE, "columns match")
          : new ColumnDiff(Verdict.REGISTRATION_IS_NEWER, "the registration has " + (registered.size() - ours.size()) + " more column(s) than this table");
    }
    return new ColumnDiff(Verdict.STALE, describe(ours, registered));
  }

  private static boolean same(RegisteredColumn ours, RegisteredColumn theirs, boolean partitionsReported) {
    return ours.name().equalsIgnoreCase(theirs.name())
        && (theirs.type() == null || theirs.type().equals(ours.type()))
        && (!partitionsReported || Objects.equals(ours.partitionIndex(), theirs.partitionIndex()));
  }

  private static String describe(List<RegisteredColumn> ours, List<RegisteredColumn> registered) {
    List<String> parts = new ArrayList<>();
    List<String> added = new ArrayList<>();
    for (RegisteredColumn column : ours) {
      RegisteredColumn match = find(registered, column.name());
      if (match == null) {
        added.add(column.name() + " " + column.type());
      } else if (match.type() != null && !match.type().equals(column.type())) {
        parts.add(column.name() + " is " + match.type() + " in the catalog, " + column.type() + " in the table");
      } else if (!Objects.equals(match.partitionIndex(), column.partitionIndex())) {
        parts.add("partitioning of " + column.name() + " differs");
      }
    }
    if (!added.isEmpty()) {
      parts.add(0, "new column(s) " + String.join(", ", added));
    }
    List<String> gone = new ArrayList<>();
    for (RegisteredColumn column : registered) {
      if (find(ours, column.name()) == null) {
        gone.add(column.name());
      }
    }
    if (!gone.isEmpty()) {
      parts.add("column(s) not in the table: " + String.join(", ", gone));
    }
    if (parts.isEmpty()) {
      parts.add("column order differs");
    }
    return String.join("; ", parts);
  }

  private static RegisteredColumn find(List<RegisteredColumn> columns, String name) {
    String wanted = name.toLowerCase(Locale.ROOT);
    return columns.stream().filter(c -> c.name().toLowerCase(Locale.ROOT).equals(wanted)).findFirst().orElse(null);
  }
}

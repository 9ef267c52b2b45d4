package io.lakesink.view;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The current-state view's rules applied in memory to changelog rows: what {@code bin/lakesink
 * show} and the demo print, and what tests compare Delta readers against.
 */
public final class CurrentState {
  private CurrentState() {}

  /**
   * @param changelog rows of a changelog table, as column → value
   * @param key primary key columns; empty keeps every non-deleted row
   * @return the visible rows (the latest of each key, unless a delete or ranked below the latest
   *     truncate), metadata columns removed as the view removes them
   */
  public static List<Map<String, Object>> collapse(
      List<Map<String, Object>> changelog, List<String> key, boolean includeMetadataColumns) {
    List<Map<String, Object>> latest;
    // Without a key there is no key to raise a rank along: each change ranks at its own time.
    Map<Map<String, Object>, ChangeOrder> rank = key.isEmpty() ? ownOrders(changelog) : RankTimes.ofChangelog(changelog, key);
    if (key.isEmpty()) {
      latest = changelog;
    } else {
      Map<List<Object>, Map<String, Object>> byKey = new HashMap<>();
      for (Map<String, Object> row : changelog) {
        List<Object> k = new ArrayList<>(key.size());
        key.forEach(c -> k.add(row.get(c)));
        byKey.merge(k, row, (a, b) -> rank.get(b).isAfter(rank.get(a)) ? b : a);
      }
      latest = new ArrayList<>(byKey.values());
    }
    ChangeOrder truncated = lastTruncate(changelog);
    List<Map<String, Object>> visible = new ArrayList<>();
    for (Map<String, Object> row : latest) {
      if (Boolean.TRUE.equals(row.get(ChangelogColumns.DELETED))
          || truncated != null && !rank.get(row).isAfter(truncated)) {
        continue;
      }
      visible.add(visibleColumns(row, includeMetadataColumns));
    }
    return visible;
  }

  /** Sorts changelog rows of one key latest first, as the view ranks them ({@link RankTimes}). */
  public static void sortLatestFirst(List<Map<String, Object>> rowsOfOneKey) {
    Map<Map<String, Object>, ChangeOrder> rank = RankTimes.ofChangelog(rowsOfOneKey, List.of());
    rowsOfOneKey.sort(java.util.Comparator.comparing(rank::get, java.util.Comparator.<ChangeOrder>reverseOrder()));
  }

  private static Map<Map<String, Object>, ChangeOrder> ownOrders(List<Map<String, Object>> changelog) {
    Map<Map<String, Object>, ChangeOrder> out = new java.util.IdentityHashMap<>();
    changelog.forEach(row -> out.put(row, ChangeOrder.of(row)));
    return out;
  }

  /** A changelog row as the view shows it: without the columns the view leaves out. */
  static Map<String, Object> visibleColumns(Map<String, Object> row, boolean includeMetadataColumns) {
    Map<String, Object> out = new LinkedHashMap<>(row);
    out.remove(ChangelogColumns.DELETED);
    out.remove(ChangelogColumns.PARTITION);
    out.remove(ChangelogColumns.OFFSET);
    out.remove(ChangelogColumns.INGEST_DATE);
    if (!includeMetadataColumns) {
      out.remove(ChangelogColumns.OP);
      out.remove(ChangelogColumns.TS_MS);
    }
    return out;
  }

  /** Where the latest truncate ranks, or null without one: every change ranked below it is gone. */
  static ChangeOrder lastTruncate(List<Map<String, Object>> changelog) {
    ChangeOrder last = null;
    for (Map<String, Object> row : changelog) {
      if (Operation.TRUNCATE.code().equals(row.get(ChangelogColumns.OP))) {
        ChangeOrder at = ChangeOrder.of(row);
        if (last == null || at.isAfter(last)) {
          last = at;
        }
      }
    }
    return last;
  }
}

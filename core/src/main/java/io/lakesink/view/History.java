package io.lakesink.view;

import io.lakesink.changelog.ChangelogColumns;
import io.lakesink.event.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The history view's rules ({@link HistoryView}) applied in memory to changelog rows: what tests
 * compare the SQL against, as {@link CurrentState} is for the current-state view.
 */
public final class History {
  private History() {}

  /** One row per version of a key, with {@code __valid_from}, {@code __valid_to} and {@code __is_current}. */
  public static List<Map<String, Object>> versions(List<Map<String, Object>> changelog, List<String> key, boolean includeMetadataColumns) {
    Map<Map<String, Object>, ChangeOrder> rank = RankTimes.ofChangelog(changelog, key);
    List<Map<String, Object>> ordered = new ArrayList<>(changelog);
    ordered.sort(Comparator.comparing(rank::get));
    List<ChangeOrder> truncates = ordered.stream()
        .filter(r -> Operation.TRUNCATE.code().equals(r.get(ChangelogColumns.OP))).map(rank::get).toList();
    Map<List<Object>, List<Map<String, Object>>> byKey = new LinkedHashMap<>();
    for (Map<String, Object> row : ordered) {
      if (Operation.TRUNCATE.code().equals(row.get(ChangelogColumns.OP))) {
        continue;
      }
      List<Object> k = new ArrayList<>();
      key.forEach(c -> k.add(row.get(c)));
      byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(row);
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (List<Map<String, Object>> changes : byKey.values()) {
      for (int i = 0; i < changes.size(); i++) {
        Map<String, Object> row = changes.get(i);
        if (Boolean.TRUE.equals(row.get(ChangelogColumns.DELETED))) {
          continue;
        }
        ChangeOrder at = rank.get(row);
        ChangeOrder closedBy = i + 1 < changes.size() ? rank.get(changes.get(i + 1)) : null;
        for (ChangeOrder t : truncates) {
          if (t.isAfter(at)) {
            closedBy = closedBy == null || closedBy.isAfter(t) ? t : closedBy;
            break; // in rank order: the first one above is the earliest
          }
        }
        Map<String, Object> version = CurrentState.visibleColumns(row, includeMetadataColumns);
        version.put(HistoryView.VALID_FROM, at.tsMs());
        version.put(HistoryView.VALID_TO, closedBy == null ? null : closedBy.tsMs());
        version.put(HistoryView.IS_CURRENT, closedBy == null);
        out.add(version);
      }
    }
    return out;
  }
}

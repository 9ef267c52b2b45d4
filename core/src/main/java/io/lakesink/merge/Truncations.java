package io.lakesink.merge;

import io.lakesink.event.ChangeEvent;
import io.lakesink.view.ChangeOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The truncates of a MERGE table. A truncate removes every row ranked below it ({@link
 * ChangeOrder}, as the current-state view ranks it); a change ranked below it is older than the
 * truncate, so it is dropped too, also when it arrives in a later batch (from another partition).
 * The merged table keeps no trace of a truncate, so that memory is the latest truncate this
 * worker applied, held until it restarts (docs/merge.md, Truncates), like {@link DeletedKeys}.
 */
final class Truncations {
  private ChangeOrder applied;

  Truncations() {}

  /** @param applied the latest truncate the table already applied (a derived table records it), or null */
  Truncations(ChangeOrder applied) {
    this.applied = applied;
  }

  /** A batch split at its truncates. */
  record Cut(ChangeOrder at, List<ChangeEvent> changes) {
    /** Whether the batch holds a truncate the table has not applied yet. */
    boolean truncates() {
      return at != null;
    }
  }

  /**
   * The batch's latest truncate ranked above the applied one (null: none), and its changes ranked
   * above both, in batch order. Truncates themselves carry no row.
   */
  Cut cut(List<ChangeEvent> events) {
    ChangeOrder latest = null;
    for (ChangeEvent e : events) {
      ChangeOrder at = ChangeOrder.of(e);
      if (e.isTruncate() && (latest == null || at.isAfter(latest)) && (applied == null || at.isAfter(applied))) {
        latest = at;
      }
    }
    ChangeOrder floor = latest != null ? latest : applied;
    List<ChangeEvent> changes = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      if (!e.isTruncate() && (floor == null || ChangeOrder.of(e).isAfter(floor))) {
        changes.add(e);
      }
    }
    return new Cut(latest, changes);
  }

  /** Once the batch's commit landed: changes ranked below its truncate are dropped from now on. */
  void applied(Cut cut) {
    if (cut.truncates()) {
      applied = cut.at();
    }
  }
}

package io.lakesink.ownership;

/**
 * One hand-off's journal entry, rewritten after each step so that a crash resumes forward.
 *
 * @param table the Delta table's name
 * @param location its root
 * @param fromCatalog the source's named catalog
 * @param fromEntry the source entry's full name
 * @param toCatalog the destination's named catalog
 * @param toEntry the destination entry's full name
 * @param step the last step that completed
 * @param epoch the epoch the fence recorded (0 before the fence)
 * @param updatedAt when the step completed (ISO-8601)
 */
public record HandOffRecord(
    String table, String location, String fromCatalog, String fromEntry, String toCatalog, String toEntry, Step step,
    long epoch, String updatedAt) {

  /** The protocol's steps, in order; each is idempotent, so the last completed one is where to resume. */
  public enum Step {
    PLANNED, FENCED, UNREGISTERED, REGISTERED, DONE;

    public boolean reached(Step other) {
      return compareTo(other) >= 0;
    }
  }

  public OwnerIdentity from() {
    return new OwnerIdentity(fromCatalog, fromEntry);
  }

  public OwnerIdentity to() {
    return new OwnerIdentity(toCatalog, toEntry);
  }

  /** The same hand-off to another destination (one not registered yet). */
  public HandOffRecord withDestination(OwnerIdentity to, long newEpoch, String now) {
    return new HandOffRecord(table, location, fromCatalog, fromEntry, to.catalog(), to.entry(), step, newEpoch, now);
  }

  public HandOffRecord at(Step next, long newEpoch, String now) {
    return new HandOffRecord(table, location, fromCatalog, fromEntry, toCatalog, toEntry, next, newEpoch, now);
  }
}

package io.lakesink.catalog;

/**
 * What building a changelog's current-state object (view or materialized view) over it came to.
 * A failure never stops the data: the table is reported degraded and the build is retried on
 * {@link RetrySchedule}.
 */
public sealed interface CurrentStateResult {
  /** Nothing to build here: no warehouse, building turned off, or not a changelog. */
  record NotManaged() implements CurrentStateResult {}

  /** The object exists as the changelog's shape asks (built now, or already). */
  record UpToDate() implements CurrentStateResult {}

  /**
   * Not built for now.
   *
   * @param reason what went wrong and what to do, for logs and status
   * @param warehouseRefused the warehouse refused the work (stopped, no entitlement, not
   *     serverless for a materialized view): retried after an hour, not sooner
   */
  record Failed(String reason, boolean warehouseRefused) implements CurrentStateResult {}

  CurrentStateResult NOT_MANAGED = new NotManaged();
  CurrentStateResult UP_TO_DATE = new UpToDate();
}

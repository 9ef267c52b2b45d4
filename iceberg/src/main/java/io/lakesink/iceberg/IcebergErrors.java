package io.lakesink.iceberg;

import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import java.util.List;

/** The messages of the Iceberg metadata sync: what is wrong with which table and what to do. */
final class IcebergErrors {
  private IcebergErrors() {}

  static TableFailureException noDeltaTable(String location) {
    return new TableFailureException(
        "There is no Delta table at " + location + " to describe as Iceberg: lakesink creates it with its first"
            + " commit. Sync the Iceberg metadata after the table has been written.",
        null, null);
  }

  static TableFailureException columnRetyped(String location, String column, String icebergType, String deltaType) {
    return new TableFailureException(
        "Column " + column + " of the Delta table at " + location + " is now " + deltaType
            + ", but its Iceberg metadata says " + icebergType + " and Iceberg cannot promote one to the other."
            + " Delete " + location + "/_lakesink_iceberg (it holds only Iceberg metadata, no data) so that the next sync"
            + " writes it anew, and register the new metadata location in the Iceberg catalog.",
        null, null);
  }

  static TableFailureException partitioningChanged(String location, List<String> iceberg, List<String> delta) {
    return new TableFailureException(
        "The Delta table at " + location + " is partitioned by " + delta + ", but its Iceberg metadata by " + iceberg
            + ". Delete " + location + "/_lakesink_iceberg (it holds only Iceberg metadata, no data) so that the next sync"
            + " writes it anew, and register the new metadata location in the Iceberg catalog.",
        null, null);
  }

  static RetryableException concurrentSync(String location, Throwable cause) {
    return new RetryableException(
        "Another process committed Iceberg metadata for " + location + " at the same time; the sync runs again.",
        cause);
  }

  static TableFailureException unsupportedDeltaFeature(String location, String property, String value, String why) {
    return new TableFailureException(
        "The Delta table at " + location + " has " + property + "=" + value + ", and " + why
            + " Its Iceberg metadata is not written; remove that setting from the table (and rewrite the files it"
            + " affected) or do not sync this table to Iceberg.",
        null, null);
  }

  static RetryableException commitUnknown(String location, Throwable cause) {
    return new RetryableException(
        "Writing the Iceberg metadata of " + location + " failed without telling whether it was written (" + cause.getMessage()
            + "); the next sync reads which version is there and carries on from it.",
        cause);
  }
}

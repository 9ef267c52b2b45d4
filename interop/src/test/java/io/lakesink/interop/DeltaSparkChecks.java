package io.lakesink.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.Snapshot;
import scala.Option;

/** Checks made by delta-spark itself on a table lakesink wrote. */
final class DeltaSparkChecks {
  private DeltaSparkChecks() {}

  /** The table's latest version, as delta-spark loads it. */
  static Snapshot snapshot(SparkSession spark, String location) {
    return DeltaLog.forTable(spark, location).update(false, Option.empty(), Option.empty());
  }

  /**
   * The table's latest version has a checksum ({@code N.crc}), and delta-spark's own validation
   * against the state it rebuilds from the log accepts it.
   */
  static void assertLatestChecksumValid(SparkSession spark, String location, String what) {
    Snapshot snapshot = snapshot(spark, location);
    assertTrue(snapshot.checksumOpt().isDefined(), what + ": no checksum at version " + snapshot.version());
    assertTrue(snapshot.validateChecksum(scala.collection.immutable.Map$.MODULE$.empty()), what + ": Delta Spark's checksum validation");
  }
}

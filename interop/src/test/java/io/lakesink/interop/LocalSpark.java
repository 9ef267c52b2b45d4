package io.lakesink.interop;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark session every interop test reads with: delta-spark's extension and catalog, one local
 * core and one partition (small tables, a busy 2-core machine; listing and snapshot state too), no UI, loopback only, an
 * in-memory catalog with its warehouse under the test's directory, UTC. Tests add what they need.
 */
final class LocalSpark {
  private LocalSpark() {}

  static SparkSession.Builder builder(String appName, Path dir) {
    return SparkSession.builder()
        .appName(appName)
        .master("local[1]")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        // delta-spark's VACUUM lists a table with this many tasks (Spark's default: 10,000), and
        // rebuilds a snapshot's state in this many partitions (50): thousands of tasks per call
        // for tables of a few dozen files, minutes of a busy 2-core machine.
        .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "1")
        .config("spark.databricks.delta.snapshotPartitions", "1")
        .config("spark.sql.catalogImplementation", "in-memory")
        .config("spark.sql.warehouse.dir", dir.resolve("spark-warehouse").toString())
        .config("spark.sql.session.timeZone", "UTC");
  }
}

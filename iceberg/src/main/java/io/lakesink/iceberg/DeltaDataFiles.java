package io.lakesink.iceberg;

import io.lakesink.delta.TableFile;
import java.net.URI;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.ParquetUtil;

/** A Delta table's data file as an Iceberg data file: same Parquet file, its partition values, row count and bounds. */
final class DeltaDataFiles {
  private DeltaDataFiles() {}

  /**
   * The record count is the Parquet file's rows, deleted or not: Iceberg applies position
   * deletes on top of it, where Delta's statistics count rows and deletion vectors apart.
   */
  static DataFile of(FileIO io, Schema schema, PartitionSpec spec, String path, TableFile file) {
    List<String> partitionValues = spec.fields().stream().map(f -> file.partitionValues().get(f.name())).toList();
    long rows = file.physicalRows() >= 0 ? file.physicalRows() : footerRowCount(io, path, file.size());
    DataFiles.Builder builder = DataFiles.builder(spec)
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(file.size())
        .withMetrics(FileBounds.metrics(schema, file, rows));
    if (!spec.isUnpartitioned()) {
      builder.withPartitionValues(partitionValues);
    }
    return builder.build();
  }

  /** Delta statistics are optional; Iceberg needs every file's row count. */
  private static long footerRowCount(FileIO io, String path, long size) {
    return ParquetUtil.fileMetrics(io.newInputFile(path, size), MetricsConfig.getDefault()).recordCount();
  }

  /** Delta's add paths are URI-encoded and relative to the table (or absolute URIs). */
  static String absolutePath(String location, String deltaPath) {
    URI uri = URI.create(deltaPath);
    if (uri.isAbsolute()) {
      return deltaPath;
    }
    return location + "/" + uri.getPath();
  }
}

package io.lakesink.iceberg;

import io.lakesink.delta.TableFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/** A Delta table's data file as an Iceberg data file: same Parquet file, its partition values, row count and bounds. */
final class DeltaDataFiles {
  private final Configuration hadoop;

  DeltaDataFiles(Configuration hadoop) {
    this.hadoop = hadoop;
  }

  DataFile of(Schema schema, PartitionSpec spec, String path, TableFile file) {
    List<String> partitionValues = spec.fields().stream().map(f -> file.partitionValues().get(f.name())).toList();
    DataFiles.Builder builder = DataFiles.builder(spec)
        .withPath(path)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(file.size())
        .withMetrics(FileBounds.metrics(schema, file, file.rows() >= 0 ? file.rows() : footerRowCount(path)));
    if (!spec.isUnpartitioned()) {
      builder.withPartitionValues(partitionValues);
    }
    return builder.build();
  }

  /** Delta statistics are optional; Iceberg needs every file's row count. */
  private long footerRowCount(String path) {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(path), hadoop))) {
      return reader.getRecordCount();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the footer of " + path, e);
    }
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

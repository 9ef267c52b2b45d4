package io.lakesink.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads an Iceberg table into iceberg-data's generic records the way {@code IcebergGenerics}
 * does (same format registry, same partition constants, same delete filter applying position
 * and equality deletes), plus the table's name mapping.
 *
 * <p>Why not {@code IcebergGenerics} itself: in Iceberg 1.11 its {@code GenericReader} ignores
 * {@code schema.name-mapping.default} (it never calls {@code withNameMapping}), and for Parquet
 * files without field ids falls back to ids by column position. On lakesink's files that reads a
 * column added after the partition column as null (the file's position 10 is taken for
 * {@code __ingest_date}'s id). Engines that honour the name mapping (Spark, Trino, this reader)
 * read the right values.
 */
public final class NameMappedRecords {
  private NameMappedRecords() {}

  public static List<Record> read(Table table) {
    return read(table, Expressions.alwaysTrue());
  }

  /** The live records of the files a scan with {@code filter} plans (rows are not filtered further). */
  public static List<Record> read(Table table, Expression filter) {
    String mapping = table.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
    Schema schema = table.schema();
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(filter).planFiles()) {
      for (FileScanTask task : tasks) {
        GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, schema);
        // With position deletes the rows are read with their position (_pos) too.
        Schema readSchema = deletes.requiredSchema();
        try (CloseableIterable<Record> rows = deletes.filter(
            FormatModelRegistry.<Record, Object>readBuilder(FileFormat.PARQUET, Record.class, table.io().newInputFile(task.file()))
                .project(readSchema)
                .idToConstant(PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant))
                .withNameMapping(NameMappingParser.fromJson(mapping))
                .build())) {
          rows.forEach(r -> records.add(r.copy()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + table.location(), e);
    }
    return records;
  }
}

package io.lakesink.iceberg;

import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Keeps Iceberg metadata next to a Delta table written by lakesink (the Apache XTable approach):
 * {@code metadata/vN.metadata.json}, manifests and manifest lists under the table's location that
 * list the same Parquet files the Delta log references. No data is copied or rewritten.
 *
 * <p>Each sync compares the latest Delta snapshot with the Iceberg table's current files and
 * commits the difference as one Iceberg snapshot: only new files → an append; files a
 * changelog table's OPTIMIZE replaced → a rewrite; other removals (MERGE) → an overwrite that
 * deletes them and adds their replacements. Diffing the
 * file sets, rather than replaying Delta commits one by one, keeps working after Delta's log
 * cleanup has deleted old commit files; the price is one Iceberg snapshot per sync, not per
 * Delta commit. The Delta version described is recorded in {@value #DELTA_VERSION} (table property
 * and snapshot summary); a sync that finds nothing new commits nothing.
 *
 * <p>lakesink's Parquet files carry no Iceberg field ids, so the table holds a name mapping
 * ({@code schema.name-mapping.default}) that Iceberg readers use to find columns by name.
 * Delta partition columns are not stored in the files; Iceberg readers take them from each
 * file's partition values (identity partitioning).
 *
 * <p>Storage: the table's location through Hadoop's FileSystem ({@link HadoopTables}), so local
 * paths today; Azure locations are not supported yet.
 */
public final class IcebergMetadataSync {
  /** Table property: the Delta version the Iceberg metadata describes. */
  public static final String DELTA_VERSION = "lakesink.delta.version";

  private final Configuration hadoop;

  public IcebergMetadataSync() {
    this(new Configuration());
  }

  public IcebergMetadataSync(Configuration hadoop) {
    this.hadoop = hadoop;
  }

  /**
   * Brings the Iceberg metadata of {@code deltaTable} up to its latest version.
   *
   * @param mode how lakesink writes the table: a changelog table never loses rows, so files it
   *     removes were compacted (OPTIMIZE), which Iceberg calls a rewrite
   */
  public SyncResult sync(DeltaTable deltaTable, DeliveryMode mode) {
    // A handle of our own: reads the latest version without dropping the caller's cached snapshot.
    DeltaTable delta = deltaTable.another();
    long version = delta.version();
    if (version < 0) {
      throw IcebergErrors.noDeltaTable(delta.location());
    }
    // One snapshot of the DeltaTable handle answers all three: they describe the same version.
    List<Column> columns = delta.columns().orElseThrow();
    List<String> partitionColumns = delta.partitionColumns();
    List<TableFile> files = delta.files();
    checkFeatures(delta.location(), delta.properties());

    HadoopTables tables = new HadoopTables(hadoop);
    String location = delta.location();
    Table table = tables.exists(location) ? tables.load(location) : create(tables, location, columns, partitionColumns);
    checkPartitioning(location, table.spec(), partitionColumns);

    // Always compared, even when the recorded version is the latest: a Delta table deleted and
    // created anew at the same location can be back at the same version with other files.
    Transaction tx = table.newTransaction();
    boolean schemaChanged = syncSchema(tx, location, columns);
    // The transaction starts from the metadata loaded above: its files are the ones to diff against.
    FileChanges changes = changes(currentFiles(table), location, files, tx.table().schema(), tx.table().spec());
    if (!schemaChanged && changes.isEmpty() && Objects.equals(table.properties().get(DELTA_VERSION), Long.toString(version))) {
      return new SyncResult(version, metadataLocation(table), 0, 0, false);
    }
    commitFiles(tx, changes, version, mode);
    tx.updateProperties()
        .set(TableProperties.GC_ENABLED, "false") // set on every sync: also protects metadata written before it
        .set(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(MappingUtil.create(tx.table().schema())))
        .set(DELTA_VERSION, Long.toString(version))
        .commit();
    try {
      tx.commitTransaction();
    } catch (CommitFailedException e) {
      throw IcebergErrors.concurrentSync(location, e);
    }
    table.refresh();
    return new SyncResult(version, metadataLocation(table), changes.added().size(), changes.removed().size(), true);
  }

  /** The data files to add to and remove from the Iceberg table so that it lists exactly {@code files}. */
  private record FileChanges(List<DataFile> added, List<DataFile> removed) {
    boolean isEmpty() {
      return added.isEmpty() && removed.isEmpty();
    }
  }

  private FileChanges changes(Map<String, DataFile> current, String location, List<TableFile> files, Schema schema, PartitionSpec spec) {
    Map<String, TableFile> wanted = new LinkedHashMap<>();
    for (TableFile file : files) {
      wanted.put(absolutePath(location, file.path()), file);
    }
    List<DataFile> added = new ArrayList<>();
    wanted.forEach((path, file) -> {
      if (!current.containsKey(path)) {
        added.add(dataFile(schema, spec, path, file));
      }
    });
    List<DataFile> removed = current.entrySet().stream().filter(e -> !wanted.containsKey(e.getKey())).map(Map.Entry::getValue).toList();
    return new FileChanges(added, removed);
  }

  /**
   * Only new files: an append (incremental Iceberg readers pick it up). Files a changelog
   * table's OPTIMIZE replaced, with as many rows as their replacements: a rewrite, which those
   * readers skip (the rows are not new). Any other removal (a MERGE, or OPTIMIZE and new rows
   * in one sync): an overwrite, which tells them rows changed. The snapshot summary also
   * carries the Delta version.
   */
  private static void commitFiles(Transaction tx, FileChanges changes, long version, DeliveryMode mode) {
    String deltaVersion = Long.toString(version);
    if (changes.removed().isEmpty()) {
      if (!changes.added().isEmpty()) {
        AppendFiles append = tx.newAppend();
        changes.added().forEach(append::appendFile);
        append.set(DELTA_VERSION, deltaVersion).commit();
      }
    } else if (mode == DeliveryMode.CHANGELOG && rows(changes.removed()) == rows(changes.added())) {
      RewriteFiles rewrite = tx.newRewrite();
      changes.removed().forEach(rewrite::deleteFile);
      changes.added().forEach(rewrite::addFile);
      rewrite.set(DELTA_VERSION, deltaVersion).commit();
    } else {
      OverwriteFiles overwrite = tx.newOverwrite();
      changes.removed().forEach(overwrite::deleteFile);
      changes.added().forEach(overwrite::addFile);
      overwrite.set(DELTA_VERSION, deltaVersion).commit();
    }
  }

  private static long rows(List<DataFile> files) {
    return files.stream().mapToLong(DataFile::recordCount).sum();
  }

  private Table create(HadoopTables tables, String location, List<Column> columns, List<String> partitionColumns) {
    Schema schema = IcebergSchemas.schema(columns);
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, "2");
    properties.put(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(MappingUtil.create(schema)));
    // The files to add are computed against the metadata this sync read; on a conflict, Iceberg
    // must not re-apply them on top of another sync's commit (they would be listed twice):
    // fail instead, and the next sync diffs again.
    properties.put(TableProperties.COMMIT_NUM_RETRIES, "0");
    // The data files belong to the Delta table (its time travel still reads files Iceberg no
    // longer lists): Iceberg's snapshot expiry, orphan-file removal and purge must never
    // delete anything here. Engines refuse them while gc.enabled is false.
    properties.put(TableProperties.GC_ENABLED, "false");
    try {
      return tables.create(schema, IcebergSchemas.spec(schema, partitionColumns), SortOrder.unsorted(), properties, location);
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException e) {
      throw IcebergErrors.concurrentSync(location, e);
    }
  }

  /** Columns the Delta table gained are added; widened types are promoted; dropped columns dropped. */
  private static boolean syncSchema(Transaction tx, String location, List<Column> columns) {
    Schema schema = tx.table().schema();
    // A transaction accepts one pending update at a time: collect the changes, then open the
    // schema update only when there is one.
    List<java.util.function.Consumer<UpdateSchema>> changes = new ArrayList<>();
    for (Column column : columns) {
      Type.PrimitiveType wanted = IcebergSchemas.type(column.type());
      Types.NestedField existing = schema.findField(column.name());
      if (existing == null) {
        changes.add(u -> u.addColumn(column.name(), wanted));
      } else if (!existing.type().equals(wanted)) {
        if (!existing.type().isPrimitiveType() || !TypeUtil.isPromotionAllowed(existing.type(), wanted)) {
          throw IcebergErrors.columnRetyped(location, column.name(), existing.type().toString(), column.type().toString());
        }
        changes.add(u -> u.updateColumn(column.name(), wanted));
      }
    }
    List<String> names = columns.stream().map(Column::name).toList();
    for (Types.NestedField field : schema.columns()) {
      if (!names.contains(field.name())) {
        changes.add(u -> u.deleteColumn(field.name()));
      }
    }
    if (!changes.isEmpty()) {
      UpdateSchema update = tx.updateSchema();
      changes.forEach(c -> c.accept(update));
      update.commit();
    }
    return !changes.isEmpty();
  }

  /**
   * Delta features whose files Iceberg would read wrongly through this metadata: column mapping
   * stores columns under physical names the name mapping does not know (they would read as
   * null); deletion vectors hide rows Iceberg would show again.
   */
  private static void checkFeatures(String location, Map<String, String> properties) {
    String mapping = properties.getOrDefault("delta.columnMapping.mode", "none");
    if (!mapping.equalsIgnoreCase("none")) {
      throw IcebergErrors.unsupportedDeltaFeature(location, "delta.columnMapping.mode", mapping,
          "its Parquet columns carry physical names that Iceberg's name mapping would not find (they would read as null).");
    }
    String deletionVectors = properties.getOrDefault("delta.enableDeletionVectors", "false");
    if (deletionVectors.equalsIgnoreCase("true")) {
      throw IcebergErrors.unsupportedDeltaFeature(location, "delta.enableDeletionVectors", deletionVectors,
          "rows a deletion vector marks as deleted would appear again through Iceberg.");
    }
  }

  private static void checkPartitioning(String location, PartitionSpec spec, List<String> partitionColumns) {
    List<String> iceberg = spec.fields().stream().map(PartitionField::name).toList();
    if (!iceberg.equals(partitionColumns)) {
      throw IcebergErrors.partitioningChanged(location, iceberg, partitionColumns);
    }
  }

  private static Map<String, DataFile> currentFiles(Table table) {
    Map<String, DataFile> files = new HashMap<>();
    if (table.currentSnapshot() == null) {
      return files;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.put(task.file().location(), task.file());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("listing the Iceberg files of " + table.location(), e);
    }
    return files;
  }

  private DataFile dataFile(Schema schema, PartitionSpec spec, String path, TableFile file) {
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

  private static String metadataLocation(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation();
  }
}

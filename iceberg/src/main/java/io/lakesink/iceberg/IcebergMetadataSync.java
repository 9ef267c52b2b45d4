package io.lakesink.iceberg;

import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;

/**
 * Keeps Iceberg metadata next to a Delta table written by lakesink (the Apache XTable approach):
 * {@code metadata/vN.metadata.json}, manifests and manifest lists under the table's location that
 * list the same Parquet files the Delta log references. No data is copied or rewritten.
 *
 * <p>Each sync compares the latest Delta snapshot with the Iceberg table's current files and
 * commits the difference as one Iceberg snapshot: only new files → an append; files a
 * changelog table's OPTIMIZE replaced → a rewrite; other removals (MERGE) → an overwrite that
 * deletes them and adds their replacements. Diffing the file sets, rather than replaying Delta
 * commits one by one, keeps working after Delta's log cleanup has deleted old commit files; the
 * price is one Iceberg snapshot per sync, not per Delta commit. The Delta version described is
 * recorded in {@value #DELTA_VERSION} (table property and snapshot summary); a sync that finds
 * nothing new commits nothing.
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
  private final DeltaDataFiles dataFiles;

  public IcebergMetadataSync() {
    this(new Configuration());
  }

  public IcebergMetadataSync(Configuration hadoop) {
    this.hadoop = hadoop;
    this.dataFiles = new DeltaDataFiles(hadoop);
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
    checkFeatures(delta.location(), delta.properties(), files);

    HadoopTables tables = new HadoopTables(hadoop);
    String location = delta.location();
    Table table = tables.exists(location) ? tables.load(location) : create(tables, location, columns, partitionColumns);
    return commit(table, location, version, columns, partitionColumns, files, mode);
  }

  /**
   * Brings {@code table} — the Iceberg table of {@code deltaTable} as a catalog loaded it (an
   * Iceberg REST catalog that owns the table) — up to the Delta table's latest version, committing
   * through that catalog so that its pointer advances.
   */
  public SyncResult sync(DeltaTable deltaTable, DeliveryMode mode, Table table) {
    DeltaTable delta = deltaTable.another();
    long version = delta.version();
    if (version < 0) {
      throw IcebergErrors.noDeltaTable(delta.location());
    }
    List<Column> columns = delta.columns().orElseThrow();
    List<String> partitionColumns = delta.partitionColumns();
    List<TableFile> files = delta.files();
    checkFeatures(delta.location(), delta.properties(), files);
    return commit(table, delta.location(), version, columns, partitionColumns, files, mode);
  }

  /** The diff between the Delta files and {@code table}'s, committed as one Iceberg snapshot. */
  private SyncResult commit(
      Table table, String location, long version, List<Column> columns, List<String> partitionColumns,
      List<TableFile> files, DeliveryMode mode) {
    checkPartitioning(location, table.spec(), partitionColumns);

    // Always compared, even when the recorded version is the latest: a Delta table deleted and
    // created anew at the same location can be back at the same version with other files.
    Transaction tx = table.newTransaction();
    boolean schemaChanged = IcebergSchemas.evolve(tx, location, columns);
    Schema schema = tx.table().schema();
    PartitionSpec spec = tx.table().spec();
    Map<String, TableFile> wanted = new LinkedHashMap<>();
    files.forEach(f -> wanted.put(DeltaDataFiles.absolutePath(location, f.path()), f));
    // The transaction starts from the metadata loaded above: its files are the ones to diff against.
    FileChanges changes = FileChanges.between(currentFiles(table), wanted, (path, file) -> dataFiles.of(schema, spec, path, file));
    if (!schemaChanged && changes.isEmpty() && Objects.equals(table.properties().get(DELTA_VERSION), Long.toString(version))) {
      return new SyncResult(version, metadataLocation(table), 0, 0, false);
    }
    changes.commit(tx, version, mode);
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
    // longer lists): Iceberg's snapshot expiry and orphan-file removal must never delete
    // anything here. Both refuse to run while gc.enabled is false.
    properties.put(TableProperties.GC_ENABLED, "false");
    try {
      return tables.create(schema, IcebergSchemas.spec(schema, partitionColumns), SortOrder.unsorted(), properties, location);
    } catch (org.apache.iceberg.exceptions.AlreadyExistsException e) {
      throw IcebergErrors.concurrentSync(location, e);
    }
  }

  /**
   * Delta features whose files Iceberg would read wrongly through this metadata: column mapping
   * stores columns under physical names the name mapping does not know (they would read as
   * null); deletion vectors hide rows Iceberg would show again.
   */
  private static void checkFeatures(String location, Map<String, String> properties, List<TableFile> files) {
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
    // The property can be switched off again while files still carry vectors.
    List<String> withDeletionVectors = files.stream().filter(TableFile::hasDeletionVector).map(TableFile::path).toList();
    if (!withDeletionVectors.isEmpty()) {
      throw IcebergErrors.deletionVectors(location, withDeletionVectors);
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

  private static String metadataLocation(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation();
  }
}

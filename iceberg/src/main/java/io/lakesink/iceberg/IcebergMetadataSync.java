package io.lakesink.iceberg;

import io.lakesink.config.DeliveryMode;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.TableFile;
import io.lakesink.event.Column;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Iceberg metadata next to a Delta table written by lakesink (the Apache XTable approach):
 * {@code _lakesink_iceberg/metadata/vN.metadata.json}, manifests and manifest lists under the
 * table's location that list the same Parquet files the Delta log references. No data is copied
 * or rewritten.
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
 * <p>Deletion vectors: for each data file with one, a position-delete file (format v2) that
 * deletes the same row positions ({@link PositionDeletes}), under
 * {@code _lakesink_iceberg/deletes/}, added in the same Iceberg snapshot as the data file change;
 * when a file's vector changes, its old delete file is removed and the new one added.
 *
 * <p>Storage: whatever the Delta table is written to (local disk, Azure), through the Delta
 * table's own file access ({@link StorageFileIO}); commits are put-if-absent writes of the next
 * {@code _lakesink_iceberg/metadata/v<N>.metadata.json} ({@link StorageTableOperations}), the
 * layout Iceberg's {@code HadoopTables} reads at {@code <table>/_lakesink_iceberg}.
 */
public final class IcebergMetadataSync {
  private static final Logger log = LoggerFactory.getLogger(IcebergMetadataSync.class);
  /** Table property: the Delta version the Iceberg metadata describes. */
  public static final String DELTA_VERSION = "lakesink.delta.version";

  /**
   * The Iceberg table kept beside {@code deltaTable}, read through the Delta table's storage, or
   * empty before the first sync. What a test or a tool reads it with; engines load
   * {@link SyncResult#metadataLocation()} or the path.
   */
  public Optional<Table> load(DeltaTable deltaTable) {
    StorageTableOperations ops = new StorageTableOperations(deltaTable.location(), deltaTable.fileIO());
    return ops.current() == null ? Optional.empty() : Optional.of(new BaseTable(ops, deltaTable.location()));
  }

  /**
   * Brings the Iceberg metadata of {@code deltaTable} up to its latest version.
   *
   * @param mode how lakesink writes the table: a changelog table never loses rows, so files it
   *     removes were compacted (OPTIMIZE), which Iceberg calls a rewrite
   */
  public SyncResult sync(DeltaTable deltaTable, DeliveryMode mode) {
    DeltaState delta = DeltaState.read(deltaTable);
    String location = delta.table().location();
    StorageTableOperations ops = new StorageTableOperations(location, delta.table().fileIO());
    if (ops.current() == null) {
      create(ops, location, delta.columns(), delta.partitionColumns());
    }
    ops.pinBase();
    return commit(delta, new BaseTable(ops, location), mode);
  }

  /**
   * Brings {@code table} — the Iceberg table of {@code deltaTable} as a catalog loaded it (an
   * Iceberg REST catalog that owns the table) — up to the Delta table's latest version, committing
   * through that catalog so that its pointer advances.
   */
  public SyncResult sync(DeltaTable deltaTable, DeliveryMode mode, Table table) {
    return commit(DeltaState.read(deltaTable), table, mode);
  }

  /** The latest Delta version, as one snapshot describes it. */
  private record DeltaState(DeltaTable table, long version, List<Column> columns, List<String> partitionColumns, List<TableFile> files) {
    static DeltaState read(DeltaTable deltaTable) {
      // A handle of our own: reads the latest version without dropping the caller's cached snapshot.
      DeltaTable delta = deltaTable.another();
      long version = delta.version();
      if (version < 0) {
        throw IcebergErrors.noDeltaTable(delta.location());
      }
      // One snapshot of the DeltaTable handle answers all of these: they describe the same version.
      DeltaState state = new DeltaState(delta, version, delta.columns().orElseThrow(), delta.partitionColumns(), delta.files());
      checkFeatures(delta.location(), delta.properties());
      return state;
    }
  }

  /** The diff between the Delta files and {@code table}'s, committed as one Iceberg snapshot. */
  private SyncResult commit(DeltaState state, Table table, DeliveryMode mode) {
    DeltaTable delta = state.table();
    long version = state.version();
    List<Column> columns = state.columns();
    List<String> partitionColumns = state.partitionColumns();
    List<TableFile> files = state.files();
    String location = delta.location();
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
    FileChanges changes = FileChanges.between(IcebergFiles.of(table), wanted,
        (path, file) -> DeltaDataFiles.of(table.io(), schema, spec, path, file),
        (data, file, key) -> PositionDeletes.write(table.io(), location, spec, data, key, delta.deletedPositions(file)));
    if (!schemaChanged && changes.isEmpty() && Objects.equals(table.properties().get(DELTA_VERSION), Long.toString(version))) {
      return new SyncResult(version, metadataLocation(table), 0, 0, false);
    }
    try {
      changes.commit(tx, version, mode);
      tx.updateProperties()
          .set(TableProperties.GC_ENABLED, "false") // set on every sync: also protects metadata written before it
          .set(TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(MappingUtil.create(tx.table().schema())))
          .set(DELTA_VERSION, Long.toString(version))
          .commit();
      tx.commitTransaction();
    } catch (CommitFailedException e) {
      deleteUncommitted(table, changes.deletesAdded());
      throw IcebergErrors.concurrentSync(location, e);
    } catch (CommitStateUnknownException e) {
      // The delete files may be listed by the metadata that was written: they stay.
      throw IcebergErrors.commitUnknown(location, e);
    }
    table.refresh();
    return new SyncResult(version, metadataLocation(table), changes.added().size(), changes.removed().size(), true);
  }

  /** Delete files written for a commit that lost: nothing lists them (the next sync writes its own). */
  private static void deleteUncommitted(Table table, List<DeleteFile> written) {
    for (DeleteFile file : written) {
      try {
        table.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        log.warn("Could not delete the unused Iceberg delete file {}: {}", file.location(), e.toString());
      }
    }
  }

  private static void create(StorageTableOperations ops, String location, List<Column> columns, List<String> partitionColumns) {
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
    // Where metadata and manifests go, also when a catalog that owns the table commits a sync
    // (its table operations honour this property): under a folder Delta's VACUUM leaves alone.
    properties.put(TableProperties.WRITE_METADATA_LOCATION, location + "/" + StorageTableOperations.METADATA_FOLDER);
    TableMetadata metadata = TableMetadata.newTableMetadata(
        schema, IcebergSchemas.spec(schema, partitionColumns), SortOrder.unsorted(), location, properties);
    try {
      ops.commit(null, metadata);
    } catch (CommitFailedException e) {
      throw IcebergErrors.concurrentSync(location, e);
    }
  }

  /**
   * Delta features whose files Iceberg would read wrongly through this metadata: column mapping
   * stores columns under physical names the name mapping does not know (they would read as
   * null). Deletion vectors are carried as position deletes.
   */
  private static void checkFeatures(String location, Map<String, String> properties) {
    String mapping = properties.getOrDefault("delta.columnMapping.mode", "none");
    if (!mapping.equalsIgnoreCase("none")) {
      throw IcebergErrors.unsupportedDeltaFeature(location, "delta.columnMapping.mode", mapping,
          "its Parquet columns carry physical names that Iceberg's name mapping would not find (they would read as null).");
    }
  }

  private static void checkPartitioning(String location, PartitionSpec spec, List<String> partitionColumns) {
    List<String> iceberg = spec.fields().stream().map(PartitionField::name).toList();
    if (!iceberg.equals(partitionColumns)) {
      throw IcebergErrors.partitioningChanged(location, iceberg, partitionColumns);
    }
  }

  private static String metadataLocation(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().metadataFileLocation();
  }
}

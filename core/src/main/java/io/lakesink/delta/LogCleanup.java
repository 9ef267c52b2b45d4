package io.lakesink.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.TableConfig;
import io.delta.kernel.internal.snapshot.MetadataCleanup;
import io.delta.kernel.internal.tablefeatures.TableFeatures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;

/**
 * Delta's log cleanup, on demand: a checkpoint at the latest version, then the commit and
 * checkpoint files older than {@code delta.logRetentionDuration} (30 days by default) that a
 * later checkpoint makes unnecessary, as Delta does. Every commit already runs it after its
 * checkpoint (every {@code delta.checkpointInterval} commits); this is for {@code lakesink maintain}.
 */
public final class LogCleanup {
  private LogCleanup() {}

  /** @return how many log files were deleted */
  public static long run(DeltaTable table, Clock clock) {
    Snapshot snapshot = table.snapshot().orElseThrow(() -> new IllegalStateException("no table at " + table.location()));
    SnapshotImpl s = (SnapshotImpl) snapshot;
    try {
      try {
        snapshot.writeCheckpoint(table.engine());
      } catch (CheckpointAlreadyExistsException e) {
        // written by the commit's own hook: nothing to add
      }
      if (!TableConfig.EXPIRED_LOG_CLEANUP_ENABLED.fromMetadata(s.getMetadata())
          || s.getProtocol().getWriterFeatures().contains(TableFeatures.CHECKPOINT_PROTECTION_W_FEATURE.featureName())) {
        return 0;
      }
      return MetadataCleanup.cleanupExpiredLogs(
          table.engine(), clock::millis, s.getDataPath(), TableConfig.LOG_RETENTION.fromMetadata(s.getMetadata()));
    } catch (IOException e) {
      throw new UncheckedIOException("cleaning the Delta log of " + table.location(), e);
    }
  }
}

package io.lakesink.delta;

import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.commit.CommitMetadata;
import io.delta.kernel.commit.CommitResponse;
import io.delta.kernel.commit.Committer;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.CommitInfo;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.commit.DefaultFileSystemManagedTableOnlyCommitter;
import io.delta.kernel.utils.CloseableIterator;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a commit as Kernel would, with Delta's name for the operation and its metrics in
 * {@code commitInfo}. Kernel's {@code Operation} has no OPTIMIZE and its commitInfo never carries
 * metrics, while readers (delta-spark's DESCRIBE HISTORY, Databricks) tell a compaction from a
 * data change by exactly these fields. Everything else (conflict detection, the atomic write of
 * {@code N.json}) stays Kernel's.
 */
final class OperationCommitter implements Committer {
  private static final int CI_ICT = CommitInfo.FULL_SCHEMA.indexOf("inCommitTimestamp");
  private static final int CI_TIMESTAMP = CommitInfo.FULL_SCHEMA.indexOf("timestamp");
  private static final int CI_ENGINE = CommitInfo.FULL_SCHEMA.indexOf("engineInfo");
  private static final int CI_TXN = CommitInfo.FULL_SCHEMA.indexOf("txnId");

  private final String operation;
  private final Map<String, String> parameters;
  private volatile Map<String, String> metrics = Map.of();

  OperationCommitter(String operation, Map<String, String> parameters) {
    this.operation = operation;
    this.parameters = Map.copyOf(parameters);
  }

  /** The metrics of the commit about to be made (known only once its files are written). */
  void metrics(Map<String, String> commitMetrics) {
    this.metrics = Map.copyOf(commitMetrics);
  }

  @Override
  public CommitResponse commit(Engine engine, CloseableIterator<Row> actions, CommitMetadata metadata)
      throws CommitFailedException {
    return DefaultFileSystemManagedTableOnlyCommitter.INSTANCE.commit(engine, actions.map(this::relabel), metadata);
  }

  private Row relabel(Row action) {
    if (action.isNullAt(SingleAction.COMMIT_INFO_ORDINAL)) {
      return action;
    }
    Row info = action.getStruct(SingleAction.COMMIT_INFO_ORDINAL);
    CommitInfo relabelled = new CommitInfo(
        info.isNullAt(CI_ICT) ? Optional.empty() : Optional.of(info.getLong(CI_ICT)),
        info.getLong(CI_TIMESTAMP),
        info.isNullAt(CI_ENGINE) ? Optional.empty() : Optional.of(info.getString(CI_ENGINE)),
        Optional.of(operation),
        parameters,
        Optional.of(false), // it removes files: never a blind append
        info.isNullAt(CI_TXN) ? Optional.empty() : Optional.of(info.getString(CI_TXN)),
        metrics);
    return SingleAction.createCommitInfoSingleAction(relabelled.toRow());
  }
}

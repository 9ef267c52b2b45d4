package io.lakesink.migration;

/**
 * How far the MERGE → changelog migration of one subscription got, in the order the steps run.
 * Each is recorded in the {@link MigrationJournal} once it took effect, and every step is safe
 * to run again, so a worker that stops between a step and its record resumes forward.
 */
public enum MigrationStep {
  /** The merged rows are in the changelog (one commit carrying {@link ChangelogMigration#transactionId}). */
  COPIED,
  /** The MERGE table's catalog entry is {@code <table>_PRE_CHANGELOG}; its files are where they were. */
  RENAMED,
  /** The current-state object stands under the original name: the migration is over. */
  VIEW_BUILT
}

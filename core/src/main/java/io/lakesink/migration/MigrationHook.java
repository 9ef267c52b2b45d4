package io.lakesink.migration;

/**
 * Called once a migration step took effect and before it is recorded in the journal: the worst
 * moment to stop. Production uses {@link #NONE}; tests throw here to prove a restart resumes.
 */
@FunctionalInterface
public interface MigrationHook {
  MigrationHook NONE = (table, step) -> {};

  void tookEffect(String table, MigrationStep step);
}

package io.lakesink.catalog;

/**
 * Where tables are registered once written (Unity Catalog, or none). Implementations live in
 * their own modules; the core calls this after a commit that created a table or added columns.
 *
 * <p>Errors follow lakesink's taxonomy: {@link io.lakesink.error.RetryableException} when the
 * catalog is throttling or unavailable (registration is tried again later; data keeps being
 * written), {@link io.lakesink.error.TableFailureException} when the catalog holds something
 * under that name that is not ours, {@link io.lakesink.error.ConfigurationException} when
 * credentials, grants or settings are wrong.
 */
public interface TableCatalog extends AutoCloseable {

  /** No catalog: tables are only written. */
  TableCatalog NONE =
      new TableCatalog() {
        @Override
        public void register(CatalogTable table) {}

        @Override
        public String describe() {
          return "no catalog";
        }
      };

  /**
   * Registers the table, or brings an existing registration of ours up to date with its
   * columns. Idempotent: calling it again with the same table changes nothing.
   */
  void register(CatalogTable table);

  /**
   * Like {@link #register}, for a table whose entry was created before: brings it up to date,
   * but when the entry is missing it is not created again (someone removed it, and only an
   * operator decides whether it comes back or the table moves elsewhere).
   *
   * @throws io.lakesink.error.ConfigurationException when the entry is missing, naming the
   *     command that restores it
   */
  default void registerExisting(CatalogTable table) {
    register(table);
  }

  /**
   * The full name of the entry this catalog registers a table as ({@code main.bronze.orders}),
   * which the table records as its owner; empty when this catalog registers nothing.
   */
  default java.util.Optional<String> entryName(String table) {
    return java.util.Optional.empty();
  }

  /**
   * How often, at most, this catalog wants to hear of new commits of a table ({@link
   * #committed}); empty (the default) when it only needs a table's new shapes. An Iceberg REST
   * catalog holds a pointer to metadata that must follow the Delta log.
   */
  default java.util.Optional<java.time.Duration> followsCommits() {
    return java.util.Optional.empty();
  }

  /**
   * The table has commits this catalog has not seen ({@link #followsCommits}): brings the
   * catalog's view of it forward. Called off the delivery thread, after the table was registered;
   * errors as for {@link #registerExisting} (a failure degrades the table and is tried again, it
   * never stops its data).
   */
  default void committed(CatalogTable table) {}

  /** The name of this catalog in lakesink's configuration; {@code default} for the {@code catalog:} block. */
  default String catalogName() {
    return "default";
  }

  /**
   * Builds, or brings up to date, the current-state object (view or materialized view) over a
   * changelog table once it is registered. Never throws: a failure is a {@link
   * CurrentStateResult.Failed} that degrades the table while its data keeps flowing.
   */
  default CurrentStateResult buildCurrentState(CatalogTable changelog) {
    return CurrentStateResult.NOT_MANAGED;
  }

  /**
   * The MERGE → changelog migration's RENAME: moves the subscription's former MERGE table (its
   * catalog entry only, never its files) from {@code <table>} to {@code <table>_PRE_CHANGELOG},
   * so the current-state object can take the name. Idempotent: {@link CurrentStateResult#UP_TO_DATE}
   * once nothing of that table is left under {@code <table>} (moved now or earlier, or never
   * registered). Never throws, as {@link #buildCurrentState}.
   */
  default CurrentStateResult moveFormerMergeTable(CatalogTable changelog) {
    return CurrentStateResult.NOT_MANAGED;
  }

  /**
   * Registers the current-state table lakesink keeps from a changelog under the subscription's
   * name ({@code current_state.object: table}): as {@link #register}, except that lakesink's own
   * view or materialized view of that subscription, left under the name from before the switch,
   * gives the name up first. Anything else under the name is refused as {@link #register} refuses it.
   */
  default void registerKeptTable(CatalogTable table) {
    register(table);
  }

  /** A short description for logs and status, without secrets. */
  String describe();

  @Override
  default void close() {}
}

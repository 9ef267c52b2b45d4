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

  /** A short description for logs and status, without secrets. */
  String describe();

  @Override
  default void close() {}
}

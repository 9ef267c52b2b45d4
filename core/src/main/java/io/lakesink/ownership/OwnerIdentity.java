package io.lakesink.ownership;

/**
 * The catalog entry a worker registers a table as: what it expects the table's owner to be.
 *
 * @param catalog the named catalog of the configuration ({@code default} for {@code catalog:})
 * @param entry the entry's full name in that catalog
 */
public record OwnerIdentity(String catalog, String entry) {
  /** For messages and for {@code lakesink handoff --to}: {@code default.main.bronze.orders_APPEND}. */
  public String target() {
    return catalog + "." + entry;
  }
}

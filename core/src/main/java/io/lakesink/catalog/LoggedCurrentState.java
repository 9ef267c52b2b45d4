package io.lakesink.catalog;

import io.lakesink.view.CurrentStateDefinition;
import io.lakesink.view.CurrentStateSpec;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Without a SQL warehouse nobody but a person can create the current-state view, so the statement
 * is logged: at start (by the wiring), and again whenever it, or the changelog's columns, change —
 * a Databricks view freezes the columns of {@code SELECT *}, so a new column needs the statement
 * run again before the view shows it.
 *
 * <p>Also a {@link TableCatalog} of its own for workers without a catalog: registers nothing.
 */
public final class LoggedCurrentState implements TableCatalog {
  private static final Logger log = LoggerFactory.getLogger(LoggedCurrentState.class);

  private final Map<String, CurrentStateSpec> specs; // by changelog table name
  private final List<String> namespace;
  private final Map<String, String> seen = new ConcurrentHashMap<>(); // changelog → fingerprint
  private final Consumer<String> out;

  /**
   * @param specs each changelog subscription's wishes, by changelog table name
   * @param namespace catalog and schema of the changelogs (empty without a catalog)
   */
  public LoggedCurrentState(Map<String, CurrentStateSpec> specs, List<String> namespace) {
    this(specs, namespace, log::warn);
  }

  /** @param out where the lines go (the log; a list in tests) */
  LoggedCurrentState(Map<String, CurrentStateSpec> specs, List<String> namespace, Consumer<String> out) {
    this.specs = Map.copyOf(specs);
    this.namespace = List.copyOf(namespace);
    this.out = out;
  }

  @Override
  public void register(CatalogTable table) {}

  @Override
  public CurrentStateResult buildCurrentState(CatalogTable changelog) {
    CurrentStateSpec spec = specs.get(changelog.name());
    if (spec == null || !spec.options().build() || spec.kind() == io.lakesink.view.CurrentStateKind.TABLE) {
      return CurrentStateResult.NOT_MANAGED; // a kept table is no view: nothing to run by hand
    }
    CurrentStateDefinition definition = spec.definition(namespace, changelog.columnNames(), changelog.recordKey());
    String previous = seen.put(changelog.name(), definition.fingerprint());
    // The first sight needs no line: the statement was logged at start.
    if (previous != null && !previous.equals(definition.fingerprint())) {
      out.accept("The changelog " + definition.changelogName() + " changed (columns now " + changelog.columnNames()
          + ", view key " + definition.key() + "): run this statement again in Databricks (no catalog.warehouse_id is"
          + " set, so lakesink cannot) for the view to show it:\n" + definition.manualStatement());
    }
    return CurrentStateResult.NOT_MANAGED;
  }

  @Override
  public String describe() {
    return "no catalog";
  }
}

package io.lakesink.view;

import io.lakesink.config.TableNames;
import java.util.ArrayList;
import java.util.List;

/**
 * What a changelog subscription asks of its current-state object, before the changelog's columns
 * are known.
 *
 * @param table the subscription's sanitized table name: the object's name; the changelog is
 *     {@code <table>_APPEND}
 * @param key the configured primary key; empty falls back to the record key, as MERGE does
 * @param includeMetadataColumns whether {@code __op} and {@code __ts_ms} stay visible
 * @param kind view, materialized view, or a table lakesink keeps (no object to build then, only
 *     the history view)
 * @param options the subscription's {@code current_state:} settings
 */
public record CurrentStateSpec(
    String table, List<String> key, boolean includeMetadataColumns, CurrentStateKind kind, CurrentStateOptions options) {

  public CurrentStateSpec {
    key = List.copyOf(key);
  }

  public String changelog() {
    return TableNames.changelog(table);
  }

  /**
   * @param namespace catalog and schema of the changelog (empty without a catalog)
   * @param columns the changelog's column names
   * @param recordKey the record key's fields, used when no primary key is configured
   */
  public CurrentStateDefinition definition(List<String> namespace, List<String> columns, List<String> recordKey) {
    List<String> changelogName = new ArrayList<>(namespace);
    changelogName.add(changelog());
    List<String> viewName = new ArrayList<>(namespace);
    if (options.schema() != null && !viewName.isEmpty()) {
      viewName.set(viewName.size() - 1, options.schema());
    }
    viewName.add(table);
    return new CurrentStateDefinition(changelogName, viewName, effectiveKey(recordKey), includeMetadataColumns, kind,
        options.refreshLag(), columns);
  }

  /**
   * The history view {@code <table>_HISTORY} beside the current-state object (in the same
   * schema); empty while no key is known (no primary key, no record key seen yet).
   */
  public java.util.Optional<HistoryDefinition> history(List<String> namespace, List<String> columns, List<String> recordKey) {
    List<String> key = effectiveKey(recordKey);
    if (key.isEmpty()) {
      return java.util.Optional.empty();
    }
    CurrentStateDefinition current = definition(namespace, columns, recordKey);
    List<String> viewName = new ArrayList<>(current.view());
    viewName.set(viewName.size() - 1, HistoryView.name(table));
    return java.util.Optional.of(new HistoryDefinition(current.changelog(), viewName, key, includeMetadataColumns, columns));
  }

  /** The configured key, else the record key's fields (MERGE's rule, so both modes agree). */
  public List<String> effectiveKey(List<String> recordKey) {
    return key.isEmpty() ? List.copyOf(recordKey) : key;
  }
}

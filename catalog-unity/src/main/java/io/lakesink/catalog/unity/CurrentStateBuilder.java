package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.catalog.CatalogTable;
import io.lakesink.catalog.CurrentStateResult;
import io.lakesink.config.TableNames;
import io.lakesink.error.LakesinkException;
import io.lakesink.view.CurrentStateDefinition;
import io.lakesink.view.CurrentStateKind;
import io.lakesink.view.CurrentStateSpec;
import io.lakesink.view.CurrentStateView;
import io.lakesink.view.HistoryDefinition;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a changelog's current-state object on the SQL warehouse and keeps it in line: created
 * when missing, replaced when the changelog's columns, the key or the hidden columns changed
 * (the fingerprint in its comment differs), dropped first when it must change kind. Only objects
 * whose comment carries {@link CurrentStateDefinition#MARKER} are ever replaced: anything else
 * under the name is left alone and reported.
 */
final class CurrentStateBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(CurrentStateBuilder.class);
  /** The suffix the former MERGE table's entry takes when the migration renames it. */
  static final String PRE_CHANGELOG = "_PRE_CHANGELOG";

  private final UnitySettings settings;
  private final UnityApi api;
  private final StatementExecution statements;
  private final Warehouse warehouse;

  CurrentStateBuilder(UnitySettings settings, UnityApi api, StatementExecution statements, Warehouse warehouse) {
    this.settings = settings;
    this.api = api;
    this.statements = statements;
    this.warehouse = warehouse;
  }

  /**
   * Builds the current-state object (none for a kept table: it is registered as a table) and, with
   * {@code current_state.history}, the history view {@code <table>_HISTORY} beside it once a key is known.
   */
  CurrentStateResult build(CatalogTable changelog, CurrentStateSpec spec) {
    CurrentStateResult current = spec.kind() == CurrentStateKind.TABLE ? CurrentStateResult.UP_TO_DATE : buildCurrent(changelog, spec);
    if (current instanceof CurrentStateResult.Failed || !spec.options().history()) {
      return current;
    }
    return spec.history(List.of(settings.catalog(), settings.schema()), changelog.columnNames(), changelog.recordKey())
        .map(this::buildHistory).orElse(current);
  }

  /** Creates the history view when missing, replaces ours when its fingerprint changed, leaves anything else alone. */
  private CurrentStateResult buildHistory(HistoryDefinition wanted) {
    String fullName = String.join(".", wanted.view());
    try {
      ApiResponse existing = api.get("/tables/" + UnityApi.segment(fullName));
      String why;
      if (existing.ok()) {
        String comment = Json.text(existing.body(), "comment");
        if (!HistoryDefinition.ours(comment)) {
          return new CurrentStateResult.Failed(
              UnityErrors.notOurs(fullName, Json.text(existing.body(), "table_type"), HistoryDefinition.MARKER, "history view"), false);
        }
        if (comment.equals(wanted.comment())) {
          return CurrentStateResult.UP_TO_DATE;
        }
        why = "the changelog's columns, the key or the settings changed";
      } else if (existing.status() == 404) {
        why = "it does not exist";
      } else {
        return failed(fullName, existing.error().summary(), false);
      }
      StatementExecution.Outcome created = statements.execute(wanted.statement());
      if (created instanceof StatementExecution.Outcome.Failed f) {
        return failed(fullName, f.error(), f.warehouseRefused());
      }
      LOG.info("Built history view {} over {} on SQL warehouse {} ({}; key {})", fullName, wanted.changelogName(),
          settings.warehouseId(), why, wanted.key());
      return CurrentStateResult.UP_TO_DATE;
    } catch (LakesinkException e) {
      return failed(fullName, e.getMessage(), false);
    }
  }

  private CurrentStateResult buildCurrent(CatalogTable changelog, CurrentStateSpec spec) {
    CurrentStateDefinition wanted =
        spec.definition(List.of(settings.catalog(), settings.schema()), changelog.columnNames(), changelog.recordKey());
    String fullName = String.join(".", wanted.view());
    try {
      ApiResponse existing = api.get("/tables/" + UnityApi.segment(fullName));
      JsonNode info = null;
      if (existing.ok()) {
        info = existing.body();
      } else if (existing.is(404, "SCHEMA_DOES_NOT_EXIST")) {
        return new CurrentStateResult.Failed(UnityErrors.viewSchemaMissing(wanted.view().get(0), wanted.view().get(1)), false);
      } else if (existing.status() != 404) {
        return failed(fullName, existing.error().summary(), false);
      }
      String why;
      if (info == null) {
        why = "it does not exist";
      } else {
        String comment = Json.text(info, "comment");
        if (!CurrentStateDefinition.ours(comment)) {
          if (formerMergeTable(info, changelog)) {
            return new CurrentStateResult.Failed(UnityErrors.formerMergeTable(fullName, spec.table()), false);
          }
          return new CurrentStateResult.Failed(
              UnityErrors.notOurs(fullName, Json.text(info, "table_type"), CurrentStateDefinition.MARKER,
                  "current-state " + wanted.kind().word().replace('_', ' ')), false);
        }
        if (comment.equals(wanted.comment()) && kindOf(info) == wanted.kind()) {
          return CurrentStateResult.UP_TO_DATE;
        }
        if (spec.key().isEmpty() && changelog.recordKey().isEmpty()) {
          // No key configured and no record seen yet since start: the key the object was built
          // with is unknown, so it is kept rather than replaced by one that does not deduplicate.
          return CurrentStateResult.UP_TO_DATE;
        }
        why = "the changelog's columns, the key or the settings changed";
      }
      return create(wanted, info, why);
    } catch (LakesinkException e) {
      return failed(fullName, e.getMessage(), false);
    }
  }

  /**
   * The migration's RENAME: the subscription's former MERGE table, registered in the catalog's
   * schema under the subscription's name, becomes {@code <table>_PRE_CHANGELOG} through the
   * warehouse. Only its entry moves: an external table's files stay where they are, and nothing
   * is ever dropped. Done already, or nothing of it there: up to date.
   */
  CurrentStateResult moveFormerMergeTable(CatalogTable changelog, CurrentStateSpec spec) {
    List<String> from = List.of(settings.catalog(), settings.schema(), spec.table());
    List<String> to = List.of(settings.catalog(), settings.schema(), spec.table() + PRE_CHANGELOG);
    String fullName = String.join(".", from);
    try {
      ApiResponse existing = api.get("/tables/" + UnityApi.segment(fullName));
      if (existing.status() == 404) {
        return CurrentStateResult.UP_TO_DATE; // renamed before, or never registered
      }
      if (!existing.ok()) {
        return failed(fullName, existing.error().summary(), false);
      }
      JsonNode info = existing.body();
      if (CurrentStateDefinition.ours(Json.text(info, "comment"))) {
        return CurrentStateResult.UP_TO_DATE; // our view already took the name
      }
      if (!formerMergeTable(info, changelog)) {
        return new CurrentStateResult.Failed(
            UnityErrors.notOurs(fullName, Json.text(info, "table_type"), CurrentStateDefinition.MARKER,
                "current-state " + spec.kind().word().replace('_', ' ')), false);
      }
      String target = String.join(".", to);
      ApiResponse taken = api.get("/tables/" + UnityApi.segment(target));
      if (taken.ok()) {
        return new CurrentStateResult.Failed(UnityErrors.preChangelogTaken(fullName, target), false);
      }
      String rename = "ALTER TABLE " + CurrentStateView.qualified(from.subList(0, 2), from.get(2)) + " RENAME TO "
          + CurrentStateView.qualified(to.subList(0, 2), to.get(2));
      StatementExecution.Outcome renamed = statements.execute(rename);
      if (renamed instanceof StatementExecution.Outcome.Failed f) {
        return failed(fullName, f.error(), f.warehouseRefused());
      }
      LOG.info("Renamed the former MERGE table {} to {} on SQL warehouse {} (its files stay at {}): {}", fullName, target,
          settings.warehouseId(), Json.text(info, "storage_location"), rename);
      return CurrentStateResult.UP_TO_DATE;
    } catch (LakesinkException e) {
      return failed(fullName, e.getMessage(), false);
    }
  }

  private CurrentStateResult create(CurrentStateDefinition wanted, JsonNode existing, String why) {
    String fullName = String.join(".", wanted.view());
    if (wanted.kind() == CurrentStateKind.MATERIALIZED_VIEW) {
      ApiResponse w = warehouse.read();
      if (!w.ok()) {
        return new CurrentStateResult.Failed(
            UnityErrors.warehouseRefused(settings.warehouseId(), settings.clientId(), w.error()), true);
      }
      Warehouse.Info info = Warehouse.info(w.body());
      if (!info.buildsMaterializedViews()) {
        return new CurrentStateResult.Failed(
            UnityErrors.needsServerless(settings.warehouseId(), info.type(), info.serverless()), true);
      }
    }
    CurrentStateKind present = existing == null ? null : kindOf(existing);
    if (present != null && present != wanted.kind()) {
      StatementExecution.Outcome dropped = statements.execute(CurrentStateDefinition.drop(present, wanted.view()));
      if (dropped instanceof StatementExecution.Outcome.Failed f) {
        return failed(fullName, f.error(), f.warehouseRefused());
      }
    }
    StatementExecution.Outcome created = statements.execute(wanted.statement());
    if (created instanceof StatementExecution.Outcome.Failed f) {
      return failed(fullName, f.error(), f.warehouseRefused());
    }
    LOG.info("Built {} {} over {} on SQL warehouse {} ({}; key {}):\n{}", wanted.kind().sql().toLowerCase(java.util.Locale.ROOT),
        fullName, wanted.changelogName(), settings.warehouseId(), why, wanted.key(), wanted.statement());
    return CurrentStateResult.UP_TO_DATE;
  }

  /**
   * Whether the object is this subscription's own MERGE table from before a switch to the
   * changelog: an external table where lakesink writes {@code <table>}, beside the changelog.
   */
  private static boolean formerMergeTable(JsonNode info, CatalogTable changelog) {
    String location = Json.text(info, "storage_location");
    String ours = TableRegistrar.normalize(changelog.location());
    return location != null && "EXTERNAL".equals(Json.text(info, "table_type")) && ours.endsWith(TableNames.changelog(""))
        && TableRegistrar.normalize(location).equals(ours.substring(0, ours.length() - TableNames.changelog("").length()));
  }

  private static CurrentStateResult failed(String fullName, String problem, boolean warehouseRefused) {
    return new CurrentStateResult.Failed(UnityErrors.currentStateFailed(fullName, problem), warehouseRefused);
  }

  /** The kind of an object of ours, from Unity Catalog's {@code table_type}. */
  private static CurrentStateKind kindOf(JsonNode info) {
    return "MATERIALIZED_VIEW".equals(Json.text(info, "table_type")) ? CurrentStateKind.MATERIALIZED_VIEW : CurrentStateKind.VIEW;
  }
}

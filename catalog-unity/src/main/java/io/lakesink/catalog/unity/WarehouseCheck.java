package io.lakesink.catalog.unity;

import io.lakesink.error.LakesinkException;
import io.lakesink.view.CurrentStateKind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The connection test's SQL warehouse steps, in the reference's order: CAN USE on the warehouse,
 * the Databricks SQL entitlement ({@code SELECT 1}, the cheapest proof of both), CREATE TABLE or
 * CREATE MATERIALIZED VIEW on each schema the objects go to, and a serverless (or Pro) warehouse
 * for materialized views. Only the current-state objects need any of it, so a missing grant
 * warns with what to grant; only a warehouse id that names no warehouse fails (a typo).
 */
final class WarehouseCheck {
  static final String CAN_USE = "SQL warehouse: CAN USE";
  static final String ENTITLEMENT = "SQL warehouse: Databricks SQL access (SELECT 1)";
  static final String CREATE = "SQL warehouse: create privilege on the view schema";
  static final String SERVERLESS = "SQL warehouse: serverless or Pro for materialized views";

  private final UnitySettings settings;
  private final Warehouse warehouse;
  private final StatementExecution statements;
  private final PermissionCheck permissions;

  WarehouseCheck(UnitySettings settings, Warehouse warehouse, StatementExecution statements, PermissionCheck permissions) {
    this.settings = settings;
    this.warehouse = warehouse;
    this.statements = statements;
    this.permissions = permissions;
  }

  /** @param viewSchemas every schema of the catalog a current-state object is built in */
  List<CheckResult> run(Collection<String> viewSchemas) {
    List<CheckResult> results = new ArrayList<>();
    String id = settings.warehouseId();
    String principal = settings.clientId();
    ApiResponse info = warehouse.read();
    if (info.status() == 404) {
      results.add(CheckResult.failed(CAN_USE, "no SQL warehouse " + id + " exists in the workspace (" + info.error().summary()
          + "): copy the id from SQL Warehouses → the warehouse → Connection details into catalog.warehouse_id"));
      return results;
    }
    Optional<Boolean> canUse = warehouse.principalCanUse();
    if (canUse.isPresent() && !canUse.get() || info.status() == 403) {
      results.add(CheckResult.warning(CAN_USE, "service principal " + principal + " lacks CAN USE on warehouse " + id
          + ": grant it with " + UnityErrors.canUseGrant(id, principal) + "; until then the current-state views are not built"));
    } else if (canUse.isEmpty()) {
      results.add(CheckResult.notVerified(CAN_USE, "the warehouse's permissions cannot be read by service principal " + principal
          + " (only a manager may); the next step tries it"));
    } else {
      results.add(CheckResult.passed(CAN_USE, "service principal " + principal + " may use warehouse " + id));
    }
    try {
      StatementExecution.Outcome one = statements.execute("SELECT 1");
      if (one instanceof StatementExecution.Outcome.Failed f) {
        results.add(CheckResult.warning(ENTITLEMENT, f.error()));
      } else {
        results.add(CheckResult.passed(ENTITLEMENT, "SELECT 1 ran on warehouse " + id));
      }
    } catch (LakesinkException e) {
      results.add(CheckResult.warning(ENTITLEMENT, e.getMessage()));
    }
    boolean materialized = settings.currentState() == CurrentStateKind.MATERIALIZED_VIEW;
    String privilege = materialized ? "CREATE_MATERIALIZED_VIEW" : "CREATE_TABLE";
    List<Grants.Grant> missing = new ArrayList<>();
    boolean unknown = false;
    for (String schema : viewSchemas) {
      Optional<Set<String>> held = permissions.effective("schema", settings.catalog() + "." + schema);
      if (held.isEmpty()) {
        unknown = true;
      } else if (!held.get().contains(privilege) && !held.get().contains(Grants.ALL_PRIVILEGES)) {
        missing.add(Grants.onSchema(privilege, settings.catalog(), schema));
      }
    }
    if (!missing.isEmpty()) {
      StringBuilder grants = new StringBuilder();
      missing.forEach(g -> grants.append(' ').append(g.statement(principal)));
      results.add(CheckResult.warning(CREATE, "service principal " + principal + " cannot create the current-state "
          + (materialized ? "materialized views" : "views") + "; run:" + grants + " (until then they are not built; data flows)"));
    } else if (unknown) {
      results.add(CheckResult.notVerified(CREATE, "the effective permissions cannot be read; a missing grant will show as"
          + " a degraded table with the GRANT to run"));
    } else {
      results.add(CheckResult.passed(CREATE, privilege.replace('_', ' ') + " held on " + viewSchemas.stream()
          .map(s -> settings.catalog() + "." + s).toList()));
    }
    if (materialized) {
      if (!info.ok()) {
        results.add(CheckResult.notVerified(SERVERLESS, "the warehouse cannot be read: " + info.error().summary()));
      } else {
        Warehouse.Info w = Warehouse.info(info.body());
        results.add(w.buildsMaterializedViews()
            ? CheckResult.passed(SERVERLESS, "warehouse " + id + " is " + (w.serverless() ? "serverless" : w.type()))
            : CheckResult.warning(SERVERLESS, UnityErrors.needsServerless(id, w.type(), w.serverless())));
      }
    }
    return results;
  }
}

package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakesink.catalog.CatalogTable;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers a table as an EXTERNAL DELTA table, or brings our registration's columns up to date.
 *
 * <p>An entry under the name is ours when it is an external table at the same storage location;
 * anything else (another location, a view, a managed table) is left untouched and fails this
 * table only. Unity Catalog has no call that changes columns, so new columns mean deleting our
 * entry and creating it again at the same location: the data of an external table stays.
 */
final class TableRegistrar {
  /** GET-then-create rounds before giving up when another writer keeps changing the entry. */
  private static final int ROUNDS = 3;
  private static final Logger LOG = LoggerFactory.getLogger(TableRegistrar.class);

  private final UnitySettings settings;
  private final UnityApi api;
  private final Namespace namespace;
  private final Failures failures;
  private final StatementExecution statements; // null without a warehouse

  TableRegistrar(UnitySettings settings, UnityApi api, Namespace namespace, Failures failures, StatementExecution statements) {
    this.settings = settings;
    this.api = api;
    this.namespace = namespace;
    this.failures = failures;
    this.statements = statements;
  }

  void register(CatalogTable table) {
    register(table, true);
  }

  /** @param mayCreate false: a missing entry was removed by someone and is reported, not created */
  void register(CatalogTable table, boolean mayCreate) {
    namespace.ensureExists();
    String fullName = namespace.fullSchemaName() + "." + table.name();
    String path = "/tables/" + UnityApi.segment(fullName);
    List<RegisteredColumn> ours = ColumnInfos.expected(table);
    boolean repaired = false;
    KeptAttributes kept = KeptAttributes.NONE;
    for (int round = 1; round <= ROUNDS; round++) {
      ApiResponse existing = api.get(path);
      if (existing.ok()) {
        requireOurs(fullName, existing.body(), table.location());
        ColumnDiff diff = ColumnDiff.compare(ours, ColumnInfos.registered(existing.body()));
        switch (diff.verdict()) {
          case UP_TO_DATE -> {
            LOG.debug("{} is registered in Unity Catalog with its current columns", fullName);
            return;
          }
          case REGISTRATION_IS_NEWER -> {
            LOG.info("{} left as registered: {}", fullName, diff.description());
            return;
          }
          case STALE -> {
            if (statements != null && !repaired) {
              // In place: the entry keeps its id, grants, tags, comment and lineage.
              repaired = true;
              if (repair(fullName, diff)) {
                continue; // read it again: the repair must have brought the columns
              }
            }
            kept = KeptAttributes.read(api, fullName, existing.body());
            LOG.info(
                "Re-registering {} ({}): Unity Catalog cannot change columns over REST, so the entry is deleted and"
                    + " created again at {}; the data stays in place, {}",
                fullName, diff.description(), table.location(), kept.describe());
            delete(fullName, path);
          }
        }
      } else if (!absent(existing)) {
        throw failures.forTable(existing, "to read table " + fullName, schemaGrant(Grants.USE_SCHEMA), fullName);
      } else if (round == 1 && !mayCreate) {
        // Only the first look counts: later rounds follow our own delete of a stale entry.
        throw UnityErrors.entryVanished(fullName, table.name(), table.location());
      }
      ApiResponse created = api.post("/tables", kept.addComment(body(table)));
      if (created.ok()) {
        LOG.info(
            "Registered {} in Unity Catalog as an external Delta table at {} ({} columns)",
            fullName, table.location(), table.columns().size());
        kept.reapply(api, fullName);
        return;
      }
      if (!alreadyExists(created)) {
        throw failures.forTable(
            created, "to register table " + fullName, schemaGrant(Grants.CREATE_EXTERNAL_TABLE), fullName);
      }
      LOG.info("{} was registered by someone else meanwhile; checking it again", fullName);
    }
    throw UnityErrors.keepsChanging(fullName, ROUNDS);
  }

  /**
   * Where the entry {@code name} of the configured schema points; empty when there is none.
   *
   * @throws io.lakesink.error.TableFailureException when the name holds something other than an
   *     external Delta table
   */
  java.util.Optional<String> location(String name) {
    namespace.ensureExists();
    String fullName = namespace.fullSchemaName() + "." + name;
    ApiResponse existing = api.get("/tables/" + UnityApi.segment(fullName));
    if (absent(existing)) {
      return java.util.Optional.empty();
    }
    if (!existing.ok()) {
      throw failures.forTable(existing, "to read table " + fullName, schemaGrant(Grants.USE_SCHEMA), fullName);
    }
    String location = Json.text(existing.body(), "storage_location");
    requireOurs(fullName, existing.body(), location == null ? "" : location);
    return java.util.Optional.ofNullable(location);
  }

  /**
   * Deletes the external entry {@code name} when it points at {@code location} (an external
   * table's files stay); nothing when it is absent. Anything else under the name is refused.
   */
  void unregister(String name, String location) {
    namespace.ensureExists();
    String fullName = namespace.fullSchemaName() + "." + name;
    String path = "/tables/" + UnityApi.segment(fullName);
    ApiResponse existing = api.get(path);
    if (absent(existing)) {
      return;
    }
    if (!existing.ok()) {
      throw failures.forTable(existing, "to read table " + fullName, schemaGrant(Grants.USE_SCHEMA), fullName);
    }
    requireOurs(fullName, existing.body(), location);
    delete(fullName, path);
    LOG.info("Unregistered {} from Unity Catalog (deleted the external entry; the files at {} stay)", fullName, location);
  }

  /**
   * {@code REPAIR TABLE … SYNC METADATA} on the warehouse: Databricks reads the columns from the
   * Delta log into the existing entry. False when the warehouse could not do it (the caller then
   * re-creates the entry, keeping grants and comment).
   */
  private boolean repair(String fullName, ColumnDiff diff) {
    String statement = "REPAIR TABLE " + quoted(fullName) + " SYNC METADATA";
    try {
      StatementExecution.Outcome outcome = statements.execute(statement);
      if (outcome instanceof StatementExecution.Outcome.Failed f) {
        LOG.warn("{} could not be updated in place ({}): {}; re-creating the entry instead", fullName, statement, f.error());
        return false;
      }
    } catch (io.lakesink.error.LakesinkException e) {
      LOG.warn("{} could not be updated in place ({}): {}; re-creating the entry instead", fullName, statement, e.getMessage());
      return false;
    }
    LOG.info("Updated {} in place with {} on SQL warehouse {} ({}): its id, grants, tags, comment and lineage stay",
        fullName, statement, settings.warehouseId(), diff.description());
    return true;
  }

  private static String quoted(String fullName) {
    StringBuilder s = new StringBuilder();
    for (String part : fullName.split("\\.")) {
      s.append(s.length() == 0 ? "" : ".").append('`').append(part.replace("`", "``")).append('`');
    }
    return s.toString();
  }

  private void requireOurs(String fullName, JsonNode info, String ourLocation) {
    String kind = Json.text(info, "table_type");
    String format = Json.text(info, "data_source_format");
    String location = Json.text(info, "storage_location");
    boolean external = "EXTERNAL".equalsIgnoreCase(kind);
    boolean delta = format == null || "DELTA".equalsIgnoreCase(format);
    if (!external || !delta) {
      String described = (kind == null ? "unknown type" : kind) + (delta ? "" : ", format " + format);
      throw UnityErrors.otherKind(fullName, described, location, ourLocation);
    }
    if (location == null || !normalize(location).equals(normalize(ourLocation))) {
      throw UnityErrors.otherLocation(fullName, String.valueOf(location), ourLocation);
    }
  }

  private void delete(String fullName, String path) {
    ApiResponse deleted = api.delete(path);
    if (deleted.ok() || absent(deleted)) {
      return;
    }
    if (deleted.status() == 403 && !deleted.error().externalAccessDisabled()) {
      throw UnityErrors.cannotDelete(fullName, failures.principal(), deleted.error());
    }
    throw failures.forTable(deleted, "to delete the table entry " + fullName, schemaGrant(Grants.USE_SCHEMA), fullName);
  }

  private ObjectNode body(CatalogTable table) {
    ObjectNode body = Json.object();
    body.put("name", table.name());
    body.put("catalog_name", settings.catalog());
    body.put("schema_name", settings.schema());
    body.put("table_type", "EXTERNAL");
    body.put("data_source_format", "DELTA");
    body.put("storage_location", table.location());
    body.set("columns", ColumnInfos.of(table));
    body.putObject("properties");
    return body;
  }

  private Grants.Grant schemaGrant(String privilege) {
    return Grants.onSchema(privilege, settings.catalog(), settings.schema());
  }

  /** 404 for the table itself, not for its catalog or schema. */
  private static boolean absent(ApiResponse r) {
    return r.status() == 404
        && !r.error().is("CATALOG_DOES_NOT_EXIST")
        && !r.error().is("SCHEMA_DOES_NOT_EXIST")
        && !r.error().externalAccessDisabled();
  }

  /** Databricks answers 409; the open-source server 400 TABLE_ALREADY_EXISTS. */
  private static boolean alreadyExists(ApiResponse r) {
    return r.is(409) || r.is(400, "TABLE_ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
  }

  /**
   * Locations compare without trailing slashes, with the scheme in lower case and {@code
   * file:///x} as {@code file:/x} (Delta and Unity Catalog spell local paths both ways).
   */
  static String normalize(String location) {
    String s = location.trim();
    int colon = s.indexOf(':');
    if (colon > 0) {
      s = s.substring(0, colon).toLowerCase(Locale.ROOT) + s.substring(colon);
    }
    if (s.startsWith("file://localhost/")) {
      s = "file:/" + s.substring("file://localhost/".length());
    } else if (s.startsWith("file:///")) {
      s = "file:/" + s.substring("file:///".length());
    }
    while (s.endsWith("/") && !s.endsWith(":/")) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }
}

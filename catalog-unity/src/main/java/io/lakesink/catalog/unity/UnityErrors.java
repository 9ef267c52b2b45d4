package io.lakesink.catalog.unity;

import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Every message the Unity Catalog module shows a user: what went wrong, where, and what to change.
 * None of these take a secret; server texts arrive already scrubbed (see {@link Redactor}).
 */
final class UnityErrors {
  private UnityErrors() {}

  // ---- settings ---------------------------------------------------------------------------

  static ConfigurationException missingSettings(List<String> keys) {
    if (keys.size() == 1) {
      return Errors.missing("catalog." + keys.get(0), what(keys.get(0)));
    }
    return new ConfigurationException(
        "Configuration keys "
            + keys.stream().map(k -> "'catalog." + k + "'").collect(Collectors.joining(", "))
            + " are required for catalog type unity: "
            + keys.stream().map(UnityErrors::what).collect(Collectors.joining("; "))
            + ".");
  }

  static ConfigurationException invalidSetting(String key, String problem, String fix) {
    return Errors.invalid("catalog." + key, problem, fix);
  }

  static ConfigurationException unknownKeys(List<String> keys, Collection<String> known) {
    return new ConfigurationException(
        "Unknown configuration key"
            + (keys.size() == 1 ? " '" : "s '")
            + String.join("', '", keys)
            + "' for catalog type unity: the keys are "
            + String.join(", ", new TreeSet<>(known))
            + ".");
  }

  static ConfigurationException personalAccessToken() {
    return new ConfigurationException(
        "Configuration key 'catalog.client_secret' holds a Databricks personal access token (it starts"
            + " with dapi). lakesink does not accept personal access tokens: Databricks deprecates them"
            + " for integrations, and they are tied to a person rather than to the integration. Create a"
            + " service principal (Settings → Identity and access → Service principals), generate an"
            + " OAuth secret for it, and set catalog.client_id to its application id and"
            + " catalog.client_secret to that secret.");
  }

  static ConfigurationException unauthenticatedNotLocal(String url) {
    return new ConfigurationException(
        "Configuration key 'catalog.allow_unauthenticated_local_server' is only accepted with an"
            + " http://localhost or http://127.0.0.1 catalog.workspace_url, not "
            + url
            + ": it is meant for an open-source Unity Catalog server on this machine. For a Databricks"
            + " workspace remove it and set catalog.client_id and catalog.client_secret.");
  }

  static ConfigurationException unauthenticatedWithCredentials() {
    return new ConfigurationException(
        "Configuration key 'catalog.allow_unauthenticated_local_server' cannot be combined with"
            + " catalog.client_id or catalog.client_secret: with it no credentials are sent at all."
            + " Remove the flag to authenticate, or remove the credentials for a local server.");
  }

  private static String what(String key) {
    return switch (key) {
      case "workspace_url" -> "catalog.workspace_url is the workspace root, e.g. https://adb-1234567890123456.7.azuredatabricks.net";
      case "client_id" -> "catalog.client_id is the service principal's application id";
      case "client_secret" -> "catalog.client_secret is an OAuth secret of that service principal (use ${env:NAME})";
      case "catalog" -> "catalog.catalog is the existing Unity Catalog catalog, e.g. main";
      case "schema" -> "catalog.schema is the existing schema in it, e.g. bronze";
      default -> "catalog." + key;
    };
  }

  // ---- OAuth ------------------------------------------------------------------------------

  static ConfigurationException credentialsRefused(String clientId, URI endpoint, ApiError error) {
    return new ConfigurationException(
        "Databricks refused the OAuth client credentials of service principal "
            + clientId
            + " at "
            + endpoint
            + " ("
            + error.summary()
            + "). Check catalog.client_id (the service principal's application id) and"
            + " catalog.client_secret (an OAuth secret generated for that service principal, not its"
            + " id and not a personal access token), and that the secret has not expired or been"
            + " deleted.");
  }

  static ConfigurationException noTokenEndpoint(String workspaceUrl, URI endpoint) {
    return new ConfigurationException(
        "No OAuth token endpoint answered at "
            + endpoint
            + " (404): catalog.workspace_url "
            + workspaceUrl
            + " does not look like a Databricks workspace. Use the URL you open the workspace with,"
            + " e.g. https://adb-1234567890123456.7.azuredatabricks.net.");
  }

  static RetryableException tokenEndpointFailed(URI endpoint, ApiError error) {
    return new RetryableException(
        "The Databricks OAuth token endpoint "
            + endpoint
            + " failed ("
            + error.summary()
            + "). Registration is tried again later; data keeps being written.",
        null);
  }

  static RetryableException invalidTokenResponse(URI endpoint) {
    return new RetryableException(
        "The Databricks OAuth token endpoint " + endpoint + " answered without an access_token; trying again later.",
        null);
  }

  static ConfigurationException freshTokenRejected(String clientId, String workspaceUrl, ApiError error) {
    return new ConfigurationException(
        "Unity Catalog at "
            + workspaceUrl
            + " rejected a freshly issued OAuth token of service principal "
            + clientId
            + " ("
            + error.summary()
            + "). The token endpoint accepted the credentials, so the service principal probably"
            + " belongs to another workspace or account: add it to this workspace (Settings → Identity"
            + " and access → Service principals) or correct catalog.workspace_url.");
  }

  static ConfigurationException localServerRequiresAuthentication(String url, ApiError error) {
    return new ConfigurationException(
        "The Unity Catalog server at "
            + url
            + " requires authentication ("
            + error.summary()
            + "), but catalog.allow_unauthenticated_local_server is set. Remove the flag and set"
            + " catalog.client_id and catalog.client_secret.");
  }

  // ---- transport --------------------------------------------------------------------------

  static RetryableException unreachable(String what, int attempts, String problem, Throwable cause) {
    return new RetryableException(
        "Cannot reach Databricks for "
            + what
            + " after "
            + attempts
            + " attempts ("
            + problem
            + "). Check catalog.workspace_url and the network path to the workspace; registration"
            + " is tried again later and data keeps being written.",
        cause);
  }

  static RetryableException stillUnavailable(String what, int attempts, ApiError error) {
    return new RetryableException(
        "Databricks kept answering "
            + error.summary()
            + " to "
            + what
            + " after "
            + attempts
            + " attempts with backoff. Registration is tried again later; data keeps being written.",
        null);
  }

  static RetryableException retryMuchLater(String what, Duration wait, ApiError error) {
    return new RetryableException(
        "Databricks asked to wait "
            + wait.toSeconds()
            + " s before retrying "
            + what
            + " ("
            + error.summary()
            + "). Registration is tried again later; data keeps being written.",
        null);
  }

  static RetryableException interrupted(String what, Throwable cause) {
    return new RetryableException("Interrupted while waiting for Databricks (" + what + ").", cause);
  }

  static RetryableException serverError(String what, ApiError error) {
    return new RetryableException(
        "Databricks failed " + what + " (" + error.summary() + "). It is tried again later; data keeps being written.",
        null);
  }

  // ---- catalog, schema, grants ------------------------------------------------------------

  static ConfigurationException catalogMissing(String catalog, String workspaceUrl) {
    return new ConfigurationException(
        "Unity Catalog catalog '"
            + catalog
            + "' does not exist in workspace "
            + workspaceUrl
            + " (or the service principal cannot see it). lakesink never creates catalogs: create it"
            + " (CREATE CATALOG "
            + Grants.quote(catalog)
            + "), grant USE CATALOG on it, or change catalog.catalog.");
  }

  static ConfigurationException schemaMissing(String catalog, String schema) {
    return new ConfigurationException(
        "Schema '"
            + schema
            + "' does not exist in catalog '"
            + catalog
            + "' (or the service principal cannot see it). lakesink never creates schemas: create it"
            + " (CREATE SCHEMA "
            + Grants.quote(catalog)
            + "."
            + Grants.quote(schema)
            + "), grant USE SCHEMA on it, or change catalog.schema.");
  }

  static ConfigurationException permissionDenied(String what, String clientId, Grants.Grant grant, ApiError error) {
    return new ConfigurationException(
        "Unity Catalog refused "
            + what
            + " ("
            + error.summary()
            + "): service principal "
            + clientId
            + " lacks "
            + grant.privilegeSql()
            + " on "
            + grant.on()
            + ". Have an owner or admin run: "
            + grant.statement(clientId));
  }

  static ConfigurationException privilegesMissing(String clientId, List<Grants.Grant> missing) {
    return new ConfigurationException(
        "Service principal "
            + clientId
            + " lacks "
            + missing.stream().map(g -> g.privilegeSql() + " on " + g.on()).collect(Collectors.joining(", "))
            + ", which lakesink needs to register external tables. Have an owner or admin run: "
            + missing.stream().map(g -> g.statement(clientId)).collect(Collectors.joining(" ")));
  }

  static ConfigurationException externalAccessDisabled(String metastoreId, ApiError error) {
    String id = metastoreId == null ? "{metastore_id}" : metastoreId;
    return new ConfigurationException(
        "External data access is disabled on the Unity Catalog metastore"
            + (metastoreId == null ? "" : " " + metastoreId)
            + (error == null ? "" : " (" + error.summary() + ")")
            + ". lakesink writes Delta files outside Databricks compute, so a metastore admin must"
            + " enable it, either in Catalog Explorer → Metastore details → External data access, or"
            + " with PATCH /api/2.1/unity-catalog/metastores/"
            + id
            + " {\"external_access_enabled\": true}"
            + (metastoreId == null ? " (the id is in GET /api/2.1/unity-catalog/metastore_summary)" : "")
            + ".");
  }

  static ConfigurationException unexpected(String what, ApiError error) {
    return new ConfigurationException(
        "Unity Catalog refused " + what + " (" + error.summary() + "). Check the catalog settings and the service principal's grants.");
  }

  // ---- tables -----------------------------------------------------------------------------

  static TableFailureException otherLocation(String fullName, String registeredAt, String ourLocation) {
    return new TableFailureException(
        "Unity Catalog already has an external table "
            + fullName
            + " at "
            + registeredAt
            + ", but lakesink writes this table at "
            + ourLocation
            + ". lakesink leaves that entry untouched. Either drop it (DROP TABLE "
            + fullName
            + " removes only the catalog entry of an external table) if it is a leftover, or give this"
            + " subscription another target table name.",
        null,
        null);
  }

  static TableFailureException otherKind(String fullName, String kind, String registeredAt, String ourLocation) {
    return new TableFailureException(
        "Unity Catalog already has an object "
            + fullName
            + " of type "
            + kind
            + (registeredAt == null ? "" : " at " + registeredAt)
            + ", not an external Delta table; lakesink would register it at "
            + ourLocation
            + ". lakesink leaves that object untouched. Rename or drop it yourself, or give this"
            + " subscription another target table name.",
        null,
        null);
  }

  static TableFailureException tableRejected(String fullName, ApiError error) {
    return new TableFailureException(
        "Unity Catalog refused to register table "
            + fullName
            + " ("
            + error.summary()
            + "). The table keeps being written; fix what the catalog names (a column name or type, the"
            + " storage location) and restart.",
        null,
        null);
  }

  static ConfigurationException cannotDelete(String fullName, String clientId, ApiError error) {
    return new ConfigurationException(
        "lakesink must delete and re-create the catalog entry of "
            + fullName
            + " to add its new columns (Unity Catalog cannot change columns in place; the data stays),"
            + " but Unity Catalog refused the delete ("
            + error.summary()
            + "). Make service principal "
            + clientId
            + " the owner again: ALTER TABLE "
            + fullName
            + " SET OWNER TO "
            + Grants.quote(clientId)
            + ";");
  }

  static RetryableException keepsChanging(String fullName, int rounds) {
    return new RetryableException(
        "The Unity Catalog entry of "
            + fullName
            + " changed under lakesink "
            + rounds
            + " times in a row (another replica registering it at the same time?); trying again later.",
        null);
  }

  // ---- SQL warehouse and current-state objects (reasons for a degraded table) ----------------

  /** The PATCH that gives the service principal CAN USE on the warehouse. */
  static String canUseGrant(String warehouseId, String principal) {
    return "PATCH /api/2.0/permissions/warehouses/" + warehouseId
        + " {\"access_control_list\":[{\"service_principal_name\":\"" + principal + "\",\"permission_level\":\"CAN_USE\"}]}"
        + " (or SQL Warehouses → the warehouse → Permissions → Can use)";
  }

  static String warehouseRefused(String warehouseId, String principal, ApiError error) {
    String fix = switch (error.status()) {
      case 403 -> "give service principal " + principal + " CAN USE on the warehouse (" + canUseGrant(warehouseId, principal)
          + ") and the Databricks SQL access entitlement (Settings → Identity and access → Service principals → Entitlements)";
      case 404 -> "check catalog.warehouse_id: no warehouse " + warehouseId + " is visible to service principal " + principal;
      default -> "start the warehouse, or set catalog.warehouse_id to one that runs";
    };
    return "SQL warehouse " + warehouseId + " refused the statement (" + error.summary() + "): " + fix + ".";
  }

  static String statementRejected(String warehouseId, ApiError error) {
    return "SQL warehouse " + warehouseId + " did not accept the statement (" + error.summary() + ")";
  }

  static String statementLost(String warehouseId, String statementId, ApiError error) {
    return "Statement " + statementId + " on SQL warehouse " + warehouseId + " could no longer be followed ("
        + error.summary() + "); it is submitted again at the next attempt";
  }

  static String statementFailed(String warehouseId, String state, String code, String message) {
    return "The statement on SQL warehouse " + warehouseId + " ended " + state
        + (code == null ? "" : " with " + code) + (message == null ? "" : ": " + message);
  }

  static String statementTimedOut(String warehouseId, Duration deadline) {
    return "The statement on SQL warehouse " + warehouseId + " did not finish within " + deadline.toMinutes()
        + " minutes and was cancelled: a busy or starting warehouse; it is tried again later";
  }

  /**
   * @param object what lakesink would build under the name, as users call it: {@code
   *     current-state view}, {@code current-state materialized view}, {@code history view}
   */
  static String notOurs(String fullName, String kind, String marker, String object) {
    return "Unity Catalog already has " + (kind == null ? "an object" : "a " + kind) + " " + fullName
        + " that lakesink did not build (its comment does not start with " + marker + "), so it is left untouched"
        + " and the " + object + " is not built: rename or drop it, or point the subscription's view to another"
        + " schema (subscriptions[].current_state.schema). The changelog keeps being written.";
  }

  static String formerMergeTable(String fullName, String table) {
    return fullName + " is still this subscription's MERGE table from before it switched to the changelog, so the"
        + " current-state view cannot take its name. The lakesink worker migrates it when it starts (copy into " + table
        + "_APPEND, rename, view); until its rows are copied it is left in place. To move it yourself, keep it under another"
        + " name with"
        + " ALTER TABLE " + fullName + " RENAME TO " + fullName + "_PRE_CHANGELOG (its files stay where they are),"
        + " then the view is built at the next attempt; copy its rows into " + table + "_APPEND if you need the state"
        + " from before the switch. The changelog keeps being written.";
  }

  static String preChangelogTaken(String fullName, String target) {
    return "The former MERGE table " + fullName + " cannot be renamed " + target + ": that name is taken. Its rows are"
        + " already in the changelog; rename or drop " + target + " (an older copy kept from a previous switch?), and"
        + " the rename and the current-state view are done at the next attempt. The changelog keeps being written.";
  }

  static String needsServerless(String warehouseId, String type, boolean serverless) {
    return "SQL warehouse " + warehouseId + " is a " + (serverless ? "serverless " : "") + type
        + " warehouse, and Databricks builds materialized views only on a serverless (or Pro) one: use such a warehouse"
        + " in catalog.warehouse_id, or set catalog.current_state: view";
  }

  static String viewSchemaMissing(String catalog, String schema) {
    return "Schema " + catalog + "." + schema + " of the current-state view does not exist: create it, or change"
        + " subscriptions[].current_state.schema";
  }

  static String currentStateFailed(String fullName, String problem) {
    return "Building " + fullName + " failed: " + problem;
  }

  // ---- Ownership (docs/catalog-handoff.md) ---------------------------------------------------

  /** The table records that its entry was registered, and the entry is gone: not re-created. */
  static ConfigurationException entryVanished(String fullName, String table, String location) {
    return new ConfigurationException(
        "Unity Catalog has no entry " + fullName + " any more, but table " + table + " at " + location
            + " records it as its registered owner: someone removed the entry, and lakesink does not create it again"
            + " on its own (that could make a second owner). Data keeps being written. To bring the entry back, run"
            + " `bin/lakesink register --config <config file> --table " + table + "`; to move the table to another"
            + " catalog, run `bin/lakesink handoff --config <config file> --table " + table
            + " --to <catalog>.<namespace>.<name>`.");
  }
}

package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The metastore's external data access flag. Databricks reports it in the metastore summary;
 * the open-source server does not, and then the check is left unverified.
 */
final class ExternalAccessCheck {
  static final String NAME = "External data access";

  private final UnityApi api;
  private final Failures failures;

  ExternalAccessCheck(UnityApi api, Failures failures) {
    this.api = api;
    this.failures = failures;
  }

  CheckResult run() {
    ApiResponse r = api.get("/metastore_summary");
    if (!r.ok()) {
      if (r.error().externalAccessDisabled()) {
        throw failures.externalAccessDisabled(r.error());
      }
      return CheckResult.notVerified(NAME, "the metastore summary cannot be read (" + r.error().summary() + ")");
    }
    JsonNode flag = r.body().path("external_access_enabled");
    String metastoreId = Json.text(r.body(), "metastore_id");
    if (!flag.isBoolean()) {
      return CheckResult.notVerified(NAME, "the metastore does not report external_access_enabled");
    }
    if (!flag.booleanValue()) {
      throw UnityErrors.externalAccessDisabled(metastoreId, null);
    }
    return CheckResult.passed(NAME, "enabled on metastore " + metastoreId);
  }

  /** The metastore id, or null when it cannot be read: only used to complete a message. */
  static String metastoreIdOrNull(UnityApi api) {
    try {
      ApiResponse r = api.get("/metastore_summary");
      return r.ok() ? Json.text(r.body(), "metastore_id") : null;
    } catch (RuntimeException e) {
      return null;
    }
  }
}

package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The configured catalog and schema. lakesink never creates them: it only checks that they exist
 * and are visible to the service principal, once, before the first registration.
 */
final class Namespace {
  private final UnitySettings settings;
  private final UnityApi api;
  private final Failures failures;
  private volatile boolean verified;

  Namespace(UnitySettings settings, UnityApi api, Failures failures) {
    this.settings = settings;
    this.api = api;
    this.failures = failures;
  }

  /** Checks once per process; a failed check is repeated on the next call. */
  void ensureExists() {
    if (!verified) {
      check();
      verified = true;
    }
  }

  /** What Unity Catalog says about the catalog and the schema. */
  record Info(JsonNode catalog, JsonNode schema) {}

  /** Reads both; throws with what to fix. */
  Info check() {
    String catalog = settings.catalog();
    ApiResponse c = api.get("/catalogs/" + UnityApi.segment(catalog));
    if (!c.ok()) {
      if (c.status() == 404 && !c.error().externalAccessDisabled()) {
        throw UnityErrors.catalogMissing(catalog, settings.workspaceUrl());
      }
      throw failures.of(c, "to read catalog " + catalog, Grants.onCatalog(Grants.USE_CATALOG, catalog));
    }
    ApiResponse s = api.get("/schemas/" + UnityApi.segment(fullSchemaName()));
    if (!s.ok()) {
      if (s.is(404, "CATALOG_DOES_NOT_EXIST")) {
        throw UnityErrors.catalogMissing(catalog, settings.workspaceUrl());
      }
      if (s.status() == 404 && !s.error().externalAccessDisabled()) {
        throw UnityErrors.schemaMissing(catalog, settings.schema());
      }
      throw failures.of(
          s, "to read schema " + fullSchemaName(), Grants.onSchema(Grants.USE_SCHEMA, catalog, settings.schema()));
    }
    verified = true;
    return new Info(c.body(), s.body());
  }

  String fullSchemaName() {
    return settings.catalog() + "." + settings.schema();
  }
}

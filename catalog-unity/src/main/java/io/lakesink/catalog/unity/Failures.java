package io.lakesink.catalog.unity;

import io.lakesink.error.LakesinkException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a failed Unity Catalog answer into the error the worker acts on: external access
 * disabled, a missing grant (with the GRANT to run), a missing catalog or schema, a server
 * failure (retried later), or — for one table — a refusal that only that table suffers.
 */
final class Failures {
  private static final Pattern METASTORE_IN_MESSAGE =
      Pattern.compile("metastore\\s+['\"]?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");

  private final UnitySettings settings;
  private final Supplier<String> metastoreId;

  /** @param metastoreId looks the metastore id up for the enabling PATCH; may return null */
  Failures(UnitySettings settings, Supplier<String> metastoreId) {
    this.settings = settings;
    this.metastoreId = metastoreId;
  }

  /** For catalog-wide calls: anything not understood is a configuration problem (or retried). */
  LakesinkException of(ApiResponse response, String what, Grants.Grant needed) {
    LakesinkException known = known(response, what, needed);
    return known != null ? known : UnityErrors.unexpected(what, response.error());
  }

  /** For one table's calls: a refusal not understood stops that table only. */
  LakesinkException forTable(ApiResponse response, String what, Grants.Grant needed, String fullName) {
    LakesinkException known = known(response, what, needed);
    return known != null ? known : UnityErrors.tableRejected(fullName, response.error());
  }

  /** The principal's name in GRANT statements. */
  String principal() {
    return settings.clientId() != null ? settings.clientId() : "<principal>";
  }

  LakesinkException externalAccessDisabled(ApiError error) {
    Matcher m = METASTORE_IN_MESSAGE.matcher(error == null ? "" : error.message());
    return UnityErrors.externalAccessDisabled(m.find() ? m.group(1) : metastoreId.get(), error);
  }

  private LakesinkException known(ApiResponse response, String what, Grants.Grant needed) {
    ApiError error = response.error();
    if (error.externalAccessDisabled()) {
      return externalAccessDisabled(error);
    }
    if (response.status() == 403) {
      return UnityErrors.permissionDenied(what, principal(), Grants.fromDenial(error.message(), needed), error);
    }
    if (error.is("CATALOG_DOES_NOT_EXIST")) {
      return UnityErrors.catalogMissing(settings.catalog(), settings.workspaceUrl());
    }
    if (error.is("SCHEMA_DOES_NOT_EXIST")) {
      return UnityErrors.schemaMissing(settings.catalog(), settings.schema());
    }
    if (response.status() >= 500) {
      return UnityErrors.serverError(what, error);
    }
    return null;
  }
}

package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** What the SQL warehouses API says about the configured warehouse. */
final class Warehouse {
  private static final Set<String> USE_LEVELS = Set.of("CAN_USE", "CAN_MONITOR", "CAN_MANAGE", "IS_OWNER");

  /**
   * @param state {@code RUNNING}, {@code STOPPED}, …
   * @param type {@code CLASSIC} or {@code PRO}
   * @param serverless {@code enable_serverless_compute}
   */
  record Info(String state, String type, boolean serverless) {
    /** Databricks builds materialized views on serverless or Pro warehouses only. */
    boolean buildsMaterializedViews() {
      return serverless || "PRO".equalsIgnoreCase(type);
    }
  }

  private final UnitySettings settings;
  private final UnityApi api;

  Warehouse(UnitySettings settings, UnityApi api) {
    this.settings = settings;
    this.api = api;
  }

  /** The warehouse's state and type; the failed answer when it cannot be read. */
  ApiResponse read() {
    return api.workspace("GET", "/api/2.0/sql/warehouses/" + UnityApi.segment(settings.warehouseId()), null);
  }

  static Info info(JsonNode body) {
    String type = Json.text(body, "warehouse_type");
    return new Info(Json.text(body, "state"), type == null ? "CLASSIC" : type.toUpperCase(Locale.ROOT),
        body.path("enable_serverless_compute").asBoolean(false));
  }

  /**
   * Whether the service principal may use the warehouse, from its permissions; empty when they
   * cannot be read (only a manager may), so nothing is known.
   */
  Optional<Boolean> principalCanUse() {
    ApiResponse r = api.workspace("GET", "/api/2.0/permissions/warehouses/" + UnityApi.segment(settings.warehouseId()), null);
    if (!r.ok()) {
      return Optional.empty();
    }
    for (JsonNode entry : r.body().path("access_control_list")) {
      if (!settings.clientId().equals(Json.text(entry, "service_principal_name"))) {
        continue;
      }
      for (JsonNode p : entry.path("all_permissions")) {
        if (USE_LEVELS.contains(Json.text(p, "permission_level"))) {
          return Optional.of(true);
        }
      }
    }
    // Not listed by name: it may still hold CAN USE through a group, which this list does not resolve.
    boolean groups = false;
    for (JsonNode entry : r.body().path("access_control_list")) {
      groups |= Json.text(entry, "group_name") != null && !"admins".equals(Json.text(entry, "group_name"));
    }
    return groups ? Optional.empty() : Optional.of(false);
  }
}

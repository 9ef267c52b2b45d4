package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the service principal's effective permissions on the catalog and the schema and fails
 * only when they are readable and a needed privilege is positively missing. Servers that do not
 * implement the call (the open-source one answers 404) or do not let us read it leave the check
 * unverified: registration itself will then say what is missing.
 */
final class PermissionCheck {
  static final String NAME = "Unity Catalog grants";
  private static final Logger LOG = LoggerFactory.getLogger(PermissionCheck.class);

  private final UnitySettings settings;
  private final UnityApi api;
  private final Namespace namespace;

  PermissionCheck(UnitySettings settings, UnityApi api, Namespace namespace) {
    this.settings = settings;
    this.api = api;
    this.namespace = namespace;
  }

  CheckResult run() {
    if (!settings.authenticated()) {
      return CheckResult.notVerified(NAME, "no service principal: the local server is used without authentication");
    }
    Namespace.Info info = namespace.check();
    String catalog = settings.catalog();
    String schema = settings.schema();
    Optional<Set<String>> onCatalog = effective("catalog", catalog);
    Optional<Set<String>> onSchema = effective("schema", namespace.fullSchemaName());
    if (onCatalog.isEmpty() && onSchema.isEmpty()) {
      return CheckResult.notVerified(
          NAME, "the effective permissions of the service principal cannot be read here; registration will report a missing grant");
    }
    // Owners hold the ordinary privileges without a grant; EXTERNAL_USE_* never comes with ownership.
    boolean ownsCatalog = settings.clientId().equalsIgnoreCase(String.valueOf(Json.text(info.catalog(), "owner")));
    boolean ownsSchema = ownsCatalog || settings.clientId().equalsIgnoreCase(String.valueOf(Json.text(info.schema(), "owner")));
    List<Grants.Grant> missing = new ArrayList<>();
    onCatalog.ifPresent(
        held -> Grants.ON_CATALOG.stream()
            .filter(p -> !covered(held, p, ownsCatalog))
            .forEach(p -> missing.add(Grants.onCatalog(p, catalog))));
    onSchema.ifPresent(
        held -> Grants.ON_SCHEMA.stream()
            .filter(p -> !covered(held, p, ownsSchema))
            .forEach(p -> missing.add(Grants.onSchema(p, catalog, schema))));
    if (!missing.isEmpty()) {
      throw UnityErrors.privilegesMissing(settings.clientId(), missing);
    }
    String verified =
        (onCatalog.isPresent() ? "catalog " : "") + (onCatalog.isPresent() && onSchema.isPresent() ? "and " : "")
            + (onSchema.isPresent() ? "schema " : "");
    return CheckResult.passed(NAME, "service principal " + settings.clientId() + " holds the needed privileges on the " + verified.trim());
  }

  private static boolean covered(Set<String> held, String privilege, boolean owner) {
    if (held.contains(privilege) || held.contains(Grants.ALL_PRIVILEGES)) {
      return true;
    }
    return owner && !privilege.startsWith("EXTERNAL_USE_");
  }

  /** The privileges held on a securable (all pages), or empty when they cannot be read. */
  Optional<Set<String>> effective(String securableType, String fullName) {
    Set<String> privileges = new HashSet<>();
    String pageToken = null;
    do {
      String path =
          "/effective-permissions/" + securableType + "/" + UnityApi.segment(fullName)
              + "?principal=" + encode(settings.clientId())
              + (pageToken == null ? "" : "&page_token=" + encode(pageToken));
      ApiResponse r = api.get(path);
      if (!r.ok()) {
        LOG.debug("Effective permissions on {} {} not readable: {}", securableType, fullName, r.error().summary());
        return Optional.empty();
      }
      JsonNode assignments = r.body().path("privilege_assignments");
      if (!assignments.isArray()) {
        return Optional.empty();
      }
      // The query is filtered by principal; grants the principal holds through a group may be
      // listed under the group's name, so every assignment returned counts.
      for (JsonNode assignment : assignments) {
        for (JsonNode privilege : assignment.path("privileges")) {
          String name = Json.text(privilege, "privilege");
          if (name != null) {
            privileges.add(name.toUpperCase(Locale.ROOT).replace(' ', '_'));
          }
        }
      }
      pageToken = Json.text(r.body(), "next_page_token");
    } while (pageToken != null && !pageToken.isEmpty());
    return Optional.of(privileges);
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}

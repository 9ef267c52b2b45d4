package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a re-created catalog entry takes over from the one it replaces: the table-level grants
 * ({@code GET/PATCH /permissions/table/…}) and the comment. Tags and lineage have no call to copy
 * them, which the log says. Reading or re-applying is best effort: the registration itself (and
 * the data) never waits on it, and whatever could not be kept is logged with the grants to run.
 *
 * @param grants principal → privileges held directly on the table
 * @param comment the table's comment, or null
 * @param readable whether the grants could be read at all
 */
record KeptAttributes(Map<String, List<String>> grants, String comment, boolean readable) {
  private static final Logger LOG = LoggerFactory.getLogger(KeptAttributes.class);
  static final KeptAttributes NONE = new KeptAttributes(Map.of(), null, true);

  static KeptAttributes read(UnityApi api, String fullName, JsonNode info) {
    String comment = Json.text(info, "comment");
    ApiResponse r = api.get("/permissions/table/" + UnityApi.segment(fullName));
    if (!r.ok()) {
      LOG.warn("The grants on {} cannot be read ({}): the re-created entry will not have them", fullName, r.error().summary());
      return new KeptAttributes(Map.of(), comment, false);
    }
    Map<String, List<String>> grants = new LinkedHashMap<>();
    for (JsonNode assignment : r.body().path("privilege_assignments")) {
      String principal = Json.text(assignment, "principal");
      List<String> privileges = new ArrayList<>();
      assignment.path("privileges").forEach(p -> privileges.add(p.isTextual() ? p.asText() : Json.text(p, "privilege")));
      privileges.removeIf(p -> p == null);
      if (principal != null && !privileges.isEmpty()) {
        grants.put(principal, privileges);
      }
    }
    return new KeptAttributes(grants, comment, true);
  }

  ObjectNode addComment(ObjectNode body) {
    if (comment != null) {
      body.put("comment", comment);
    }
    return body;
  }

  void reapply(UnityApi api, String fullName) {
    if (grants.isEmpty()) {
      return;
    }
    ObjectNode changes = Json.object();
    ArrayNode list = changes.putArray("changes");
    grants.forEach((principal, privileges) -> {
      ObjectNode change = list.addObject();
      change.put("principal", principal);
      privileges.forEach(change.putArray("add")::add);
    });
    ApiResponse r = api.patch("/permissions/table/" + UnityApi.segment(fullName), changes);
    if (r.ok()) {
      LOG.info("Re-applied the grants on {} after re-creating its entry: {}", fullName, grants);
    } else {
      LOG.warn("The grants on {} could not be re-applied ({}); grant them again: {}", fullName, r.error().summary(), grants);
    }
  }

  String describe() {
    if (!readable) {
      return "its grants could not be read and are lost; tags and lineage are lost";
    }
    return "keeping its comment and grants " + grants + " (tags and lineage cannot be copied and are lost;"
        + " set catalog.warehouse_id to update the entry in place instead)";
  }
}

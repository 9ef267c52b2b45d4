package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Databricks error body: {@code {"error_code","message","details":[{"reason"},{"request_id"}]}}.
 * The message is already scrubbed of secrets when this record exists.
 *
 * @param status HTTP status
 * @param errorCode e.g. {@code PERMISSION_DENIED}, or null when the body had none
 * @param message the server's text, possibly empty
 * @param reasons every {@code details[].reason}
 * @param requestId {@code details[].request_id}, for Databricks support; may be null
 */
record ApiError(int status, String errorCode, String message, List<String> reasons, String requestId) {

  static final String EXTERNAL_ACCESS_DISABLED = "EXTERNAL_ACCESS_DISABLED_ON_METASTORE";

  ApiError {
    message = message == null ? "" : message;
    reasons = List.copyOf(reasons);
  }

  static ApiError parse(int status, String body, Redactor redactor) {
    JsonNode root = Json.parse(body);
    String code = Json.text(root, "error_code");
    String message = Json.text(root, "message");
    if (code == null && message == null) {
      // OAuth style ({"error","error_description"}) or no JSON at all.
      code = Json.text(root, "error");
      message = Json.text(root, "error_description");
    }
    if (message == null && !root.isContainerNode() && body != null) {
      message = abbreviate(body.strip());
    }
    List<String> reasons = new ArrayList<>();
    String requestId = null;
    for (JsonNode detail : root.path("details")) {
      String reason = Json.text(detail, "reason");
      if (reason != null) {
        reasons.add(reason);
      }
      if (requestId == null) {
        requestId = Json.text(detail, "request_id");
      }
    }
    return new ApiError(status, code, redactor.scrub(message), reasons, requestId);
  }

  /** Whether the error code or any detail reason is {@code code}. */
  boolean is(String code) {
    return code.equals(errorCode) || reasons.contains(code);
  }

  /**
   * The metastore refuses external engines. Which field carries the reason is unconfirmed, so the
   * error code, the detail reasons and the message text all count.
   */
  boolean externalAccessDisabled() {
    String text = message.toLowerCase(Locale.ROOT);
    return is(EXTERNAL_ACCESS_DISABLED)
        || text.contains(EXTERNAL_ACCESS_DISABLED.toLowerCase(Locale.ROOT))
        || (text.contains("external data access") && text.contains("disabled"));
  }

  /** For messages: {@code 403 PERMISSION_DENIED: <message> (request id …)}. */
  String summary() {
    StringBuilder s = new StringBuilder().append(status);
    if (errorCode != null) {
      s.append(' ').append(errorCode);
    }
    if (!message.isEmpty()) {
      s.append(": ").append(message);
    }
    if (requestId != null) {
      s.append(" (request id ").append(requestId).append(')');
    }
    return s.toString();
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 197) + "...";
  }
}

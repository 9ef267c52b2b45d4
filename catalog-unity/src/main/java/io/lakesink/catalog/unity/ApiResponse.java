package io.lakesink.catalog.unity;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A Unity Catalog answer after throttling and token renewal were dealt with.
 *
 * @param status HTTP status
 * @param body the parsed body (missing node when not JSON)
 * @param error the parsed error when the status is not 2xx, else null
 */
record ApiResponse(int status, JsonNode body, ApiError error) {

  static ApiResponse of(HttpReply reply, Redactor redactor) {
    JsonNode body = Json.parse(reply.body());
    return new ApiResponse(reply.status(), body, reply.ok() ? null : ApiError.parse(reply.status(), reply.body(), redactor));
  }

  boolean ok() {
    return error == null;
  }

  /** Whether this is a failure with {@code status} and (when given) one of the error codes. */
  boolean is(int expectedStatus, String... codes) {
    if (error == null || status != expectedStatus) {
      return false;
    }
    if (codes.length == 0) {
      return true;
    }
    for (String code : codes) {
      if (error.is(code)) {
        return true;
      }
    }
    return false;
  }
}

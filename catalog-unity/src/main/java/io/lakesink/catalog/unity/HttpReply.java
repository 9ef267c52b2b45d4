package io.lakesink.catalog.unity;

import java.util.Optional;

/** One HTTP answer: status, body text and the {@code Retry-After} header if any. */
record HttpReply(int status, String body, Optional<String> retryAfter) {
  boolean ok() {
    return status >= 200 && status < 300;
  }
}

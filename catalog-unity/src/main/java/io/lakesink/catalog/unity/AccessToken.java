package io.lakesink.catalog.unity;

import java.time.Instant;

/**
 * An OAuth access token and when to stop using it. There is no refresh token in the
 * client-credentials flow: a new token is fetched at {@code renewAt}, shortly before expiry.
 */
record AccessToken(String value, Instant expiresAt, Instant renewAt) {
  @Override
  public String toString() {
    return "AccessToken[value=***, expiresAt=" + expiresAt + ", renewAt=" + renewAt + "]";
  }
}

package io.lakesink.catalog.unity;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;

/**
 * Removes secrets from text that came from outside (server error bodies, exception texts) before
 * it reaches a log line or an exception message. Our own messages never take a secret; this is
 * the second line of defence for what the server echoes back.
 */
final class Redactor {
  /** Tokens rotate hourly: the last few are enough to cover any text still in flight. */
  private static final int KEPT_TOKENS = 8;

  /** Shorter strings are too likely to occur by chance to be replaced everywhere. */
  private static final int SHORTEST = 4;

  private final List<String> fixed = new ArrayList<>();
  private final Deque<String> tokens = new ArrayDeque<>();

  /** @param clientId may be null; only used to also hide the Basic credentials built from the secret */
  Redactor(String clientId, String clientSecret) {
    if (clientSecret != null && clientSecret.length() >= SHORTEST) {
      fixed.add(clientSecret);
      fixed.add(Base64.getEncoder().encodeToString((clientId + ":" + clientSecret).getBytes(StandardCharsets.UTF_8)));
    }
  }

  synchronized void addToken(String token) {
    if (token.length() < SHORTEST) {
      return;
    }
    tokens.addFirst(token);
    while (tokens.size() > KEPT_TOKENS) {
      tokens.removeLast();
    }
  }

  synchronized String scrub(String text) {
    if (text == null) {
      return null;
    }
    String result = text;
    for (String secret : fixed) {
      result = result.replace(secret, "***");
    }
    for (String token : tokens) {
      result = result.replace(token, "***");
    }
    return result;
  }
}

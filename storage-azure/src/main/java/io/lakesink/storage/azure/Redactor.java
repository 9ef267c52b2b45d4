package io.lakesink.storage.azure;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes secrets from text taken from the SDK before it reaches a message, a log or an exception
 * cause: the configured secrets literally (and URL-encoded), plus anything shaped like a SAS
 * signature, account key or bearer token.
 */
final class Redactor {
  static final String MASK = "***";
  private static final Pattern KEY_VALUE =
      Pattern.compile(
          "(?i)\\b(sig|accountkey|sharedaccesssignature|client_secret|client_assertion|access_token"
              + "|refresh_token)=([^&;\\s'\"<>]+)");
  private static final Pattern BEARER = Pattern.compile("(?i)\\b(bearer\\s+)[A-Za-z0-9._~+/=-]{8,}");

  private final Set<String> secrets = new LinkedHashSet<>();

  Redactor(List<String> secrets) {
    for (String secret : secrets) {
      // Short values could match ordinary text; every real key, SAS or client secret is long.
      if (secret != null && secret.length() >= 6) {
        this.secrets.add(secret);
        this.secrets.add(URLEncoder.encode(secret, StandardCharsets.UTF_8));
      }
    }
  }

  String redact(String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String secret : secrets) {
      out = out.replace(secret, MASK);
    }
    out = KEY_VALUE.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + "=" + MASK));
    return BEARER.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + MASK));
  }

  /**
   * A copy of {@code t} and its causes whose messages are redacted, keeping class names and stack
   * traces for debugging. Used as the cause of lakesink's own exceptions, which get logged.
   */
  RuntimeException scrub(Throwable t) {
    return scrub(t, 0);
  }

  private RuntimeException scrub(Throwable t, int depth) {
    if (t == null || depth > 8) {
      return null;
    }
    String message = t.getClass().getName();
    if (t.getMessage() != null) {
      message += ": " + redact(t.getMessage());
    }
    RedactedException copy = new RedactedException(message, scrub(t.getCause(), depth + 1));
    copy.setStackTrace(t.getStackTrace());
    return copy;
  }

  /** Stands in for an SDK exception whose message may have carried a secret. */
  static final class RedactedException extends RuntimeException {
    RedactedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}

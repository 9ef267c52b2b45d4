package io.lakesink.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides the secrets of {@code kafka.properties} in text that came from Kafka (exception messages)
 * before it reaches a message. lakesink's own wording never takes a secret; this is the second line
 * of defence for what a client library or a broker might echo back.
 */
final class SecretScrubber implements UnaryOperator<String> {
  /** Keys whose value is a secret: ssl.*.password, sasl.jaas.config, sasl.oauthbearer.*secret*, … */
  private static final Pattern SECRET_KEY = Pattern.compile(".*(password|secret|jaas|token|credential|\\.key).*");
  /** A JAAS option's value: {@code password="…"} or {@code password=…;}. */
  private static final Pattern JAAS_VALUE = Pattern.compile("=\\s*(\"[^\"]*\"|[^\\s;\"]+)");
  /** Shorter strings are too likely to occur by chance to be replaced everywhere. */
  private static final int SHORTEST = 4;

  private final List<String> secrets = new ArrayList<>();

  SecretScrubber(Map<String, String> properties) {
    properties.forEach((key, value) -> {
      if (value == null || !isSecret(key)) {
        return;
      }
      add(value);
      // Each option of a JAAS line too: a message may quote the password without the rest.
      Matcher m = JAAS_VALUE.matcher(value);
      while (m.find()) {
        String v = m.group(1);
        add(v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
      }
    });
    secrets.sort((a, b) -> b.length() - a.length()); // the whole line before its parts
  }

  /** Whether a Kafka property's value is a secret, by its name. */
  static boolean isSecret(String key) {
    return SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).matches();
  }

  private void add(String secret) {
    if (secret.length() >= SHORTEST) {
      secrets.add(secret);
    }
  }

  @Override
  public String apply(String text) {
    if (text == null) {
      return null;
    }
    String result = text;
    for (String s : secrets) {
      result = result.replace(s, "***");
    }
    return result;
  }
}

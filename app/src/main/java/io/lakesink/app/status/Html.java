package io.lakesink.app.status;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/** Escaping and the small formats the status page shows. */
final class Html {
  /** What a POSIX shell takes as one word without quotes. */
  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private Html() {}

  /**
   * Text safe in an element's content and in a quoted attribute. Every string the page shows
   * goes through here: table and topic names come from configuration, reasons and problems
   * from messages that quote identifiers.
   */
  static String esc(Object value) {
    String s = String.valueOf(value);
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** One shell word, quoted only when it needs to be, so a copied command runs as shown. */
  static String shellWord(String s) {
    return SHELL_SAFE.matcher(s).matches() ? s : "'" + s.replace("'", "'\\''") + "'";
  }

  /** An instant to the second, in UTC. */
  static String time(Instant at) {
    return at == null ? "–" : at.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** A duration in its two largest units: "8 s", "4 min 10 s", "2 h 3 min", "3 d 4 h". */
  static String ago(Instant then, Instant now) {
    long s = Math.max(0, Duration.between(then, now).toSeconds());
    if (s < 60) return s + " s";
    if (s < 3600) return s / 60 + " min " + s % 60 + " s";
    if (s < 86_400) return s / 3600 + " h " + s % 3600 / 60 + " min";
    return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
  }
}

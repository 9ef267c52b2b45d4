package io.lakesink.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lakesink.config.TableNames;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The commented configuration {@code lakesink init} writes. Written as text, since YAML libraries
 * drop comments; every value is a double-quoted (JSON-escaped) scalar, so no topic or field name
 * can turn into a number, a boolean or YAML syntax. No secret is written: a secret setting of
 * {@code --config}'s file becomes a {@code ${env:NAME}} reference unless it already is one.
 */
final class StarterConfig {
  /**
   * One subscription to write.
   *
   * @param sampled how the topic's record was read
   */
  record Entry(String topic, TopicSampler.Status sampled, SampleShape shape) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final StringBuilder out = new StringBuilder();
  private final Set<String> takenNames = new HashSet<>();

  private StarterConfig() {}

  /**
   * @param skipped topics that passed the patterns but carry no table's events, with the reason
   * @param bound the time bound records were read within, in words ("10 s")
   */
  static String render(InitSource source, List<Entry> entries, Map<String, String> skipped, String bound) {
    StarterConfig c = new StarterConfig();
    c.line("# lakesink configuration written by `lakesink init` from the topics of " + comment(source.bootstrap()) + ".");
    c.line("# Fill in storage, read the comments, then run: bin/lakesink check --config <this file>");
    c.line("# Every key is described in docs/configuration.md.");
    c.line("");
    c.kafka(source);
    c.storage();
    if (!source.writtenRegistry().isEmpty() || entries.stream().anyMatch(e -> e.shape().format() == SampleShape.Format.AVRO)) {
      c.registry(source.writtenRegistry());
    }
    c.line("# One subscription per table topic. table is the topic's name with anything but letters, digits and _");
    c.line("# replaced, as the Kafka Connect plugin names it: choose another before the first run (a new name is a new");
    c.line("# table). mode changelog appends every change to <table>_APPEND, with the current-state view <table>;");
    c.line("# mode merge keeps one row per primary key in <table>, changed in place (docs/merge.md). primary_key is");
    c.line("# the record key's fields as a record showed them (without it, lakesink takes them from each record).");
    c.line("subscriptions:");
    entries.forEach(e -> c.subscription(e, bound));
    if (!skipped.isEmpty()) {
      c.line("");
      c.line("# Not subscribed (not a table's change events):");
      skipped.forEach((t, why) -> c.line("#   " + comment(t) + ": " + comment(why)));
    }
    return c.out.toString();
  }

  private void kafka(InitSource source) {
    line("kafka:");
    source.written().forEach((k, v) -> {
      if (v != null) {
        line("  " + k + ": " + quote(v));
      }
    });
    if (!source.written().containsKey("group_id")) {
      line(pad("  group_id: \"lakesink\"") + "# replicas with the same group share the partitions");
    }
    if (source.writtenProperties().isEmpty()) {
      line(pad("  # properties:") + "# security settings, passed to the Kafka consumer as they are");
      line("  #   security.protocol: SASL_SSL");
      line("  #   sasl.mechanism: PLAIN");
      line("  #   sasl.jaas.config: ${env:KAFKA_SASL_JAAS_CONFIG}   # a secret: reference an environment variable");
    } else {
      line("  properties:");
      source.writtenProperties().forEach((k, v) -> {
        boolean hide = SecretScrubber.isSecret(k) && !v.contains("${env:");
        String variable = "KAFKA_" + k.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
        line("    " + quote(k) + ": " + (hide ? quote("${env:" + variable + "}") + "   # a secret, not copied: set " + variable
            + " in the worker's environment" : quote(v)));
      });
    }
    line("");
  }

  private void storage() {
    line(pad("storage:") + "# where the tables go: fill in one of the two");
    line("  type: local");
    line(pad("  # path: /var/lib/lakesink") + "# the directory tables are written under");
    line("  # Or Azure Blob Storage / ADLS Gen2 (docs/storage-azure.md), instead of the two lines above:");
    line("  # type: azure");
    line("  # container: lakesink");
    line("  # connection_string: ${env:AZURE_STORAGE_CONNECTION_STRING}");
    line("");
  }

  private void registry(Map<String, String> written) {
    line(pad("schema_registry:") + "# needed by the Avro topics (format: avro)");
    if (written.get("url") == null) {
      line(pad("  url: \"${env:SCHEMA_REGISTRY_URL}\"") + "# set SCHEMA_REGISTRY_URL, or write the URL here (http://registry:8081)");
    }
    written.forEach((k, v) -> {
      if (v == null) {
        return;
      }
      boolean secret = k.contains("password") && !v.contains("${env:");
      String variable = "SCHEMA_REGISTRY_" + k.toUpperCase(Locale.ROOT);
      line("  " + k + ": " + (secret ? quote("${env:" + variable + "}") + "   # a secret, not copied: set " + variable : quote(v)));
    });
    line("");
  }

  private void subscription(Entry e, String bound) {
    SampleShape s = e.shape();
    line("");
    line("  # " + comment(e.topic()) + ": " + comment(describe(e, bound)));
    line("  - topic: " + quote(e.topic()));
    line("    table: " + quote(tableName(e.topic())));
    line(pad("    mode: changelog") + "# or merge: one row per primary key");
    switch (s.format()) {
      case JSON, JSON_WITH_SCHEMAS -> line("    format: json");
      case AVRO -> line(pad("    format: avro") + "# needs schema_registry");
      default -> line(pad("    format: auto") + "# Avro when a record starts with the magic byte 0, else JSON");
    }
    if (!s.keyFields().isEmpty()) {
      line("    primary_key: " + quote(s.keyFields()));
    } else if (s.keyNote() != null) {
      line(pad("    # primary_key: [...]") + "# " + comment(s.keyNote()));
    }
  }

  private static String describe(Entry e, String bound) {
    SampleShape s = e.shape();
    return switch (e.sampled()) {
      case EMPTY -> "no record yet, so its key and format could not be seen (run init again once it has records,"
          + " or fill them in)";
      case NOT_READ -> "no record could be read within " + bound + ", so its key and format could not be seen (a longer"
          + " --sample-timeout may help)";
      case TOMBSTONES -> "only tombstones so far, so its format could not be seen" + key(s);
      case READ -> format(s.format()) + key(s);
    };
  }

  private static String format(SampleShape.Format f) {
    return switch (f) {
      case JSON_WITH_SCHEMAS -> "JSON with schemas (columns typed from the schema)";
      case JSON -> "JSON without schemas (every column a string; the converter's schemas.enable=true types them)";
      case AVRO -> "Avro (Confluent wire format)";
      default -> "format not seen";
    };
  }

  private static String key(SampleShape s) {
    return s.keyFields().isEmpty() ? "" : "; key " + String.join(", ", s.keyFields()); // else the primary_key comment says why
  }

  /**
   * The topic's name as the Kafka Connect plugin derives it by default, made distinct: the
   * worker refuses two subscriptions whose names (and {@code _APPEND} names) meet, ignoring case.
   */
  private String tableName(String topic) {
    String base = TableNames.sanitize(topic);
    String name = base;
    for (int n = 2; taken(name); n++) {
      name = base + "_" + n;
    }
    takenNames.add(name.toLowerCase(Locale.ROOT));
    takenNames.add(TableNames.changelog(name).toLowerCase(Locale.ROOT));
    return name;
  }

  private boolean taken(String name) {
    return takenNames.contains(name.toLowerCase(Locale.ROOT)) || takenNames.contains(TableNames.changelog(name).toLowerCase(Locale.ROOT));
  }

  private static String quote(Object value) {
    try {
      return JSON.writeValueAsString(value); // a JSON string or array is valid YAML flow style
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A comment ends at a line break: a field name could hold one. */
  private static String comment(String text) {
    return text.replaceAll("\\p{Cntrl}", "?");
  }

  /** Comments start in one column, where the values leave room. */
  private static String pad(String text) {
    return text.length() >= 40 ? text + "  " : text + " ".repeat(40 - text.length());
  }

  private void line(String text) {
    out.append(text).append('\n');
  }
}

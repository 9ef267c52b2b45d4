package io.lakesink.app;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.error.Errors;
import io.lakesink.error.LakesinkException;
import io.lakesink.kafka.avro.SchemaRegistryClient;
import io.lakesink.kafka.decode.DecodeException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.kafka.common.KafkaException;

/**
 * {@code lakesink init}: lists the broker's Debezium table topics, reads a record of each for its
 * key and format, and writes a starter configuration with one subscription per table.
 */
final class InitCommand {
  /**
   * @param bootstrap {@code --bootstrap-servers}, or null
   * @param config {@code --config}, or null
   * @param output {@code --output}, or null for standard output
   * @param sampleTimeout how long to wait for the topics' records
   */
  record Request(String bootstrap, Path config, String registryUrl, List<Pattern> include, List<Pattern> exclude,
      Path output, boolean force, Duration sampleTimeout) {}

  private InitCommand() {}

  /** @param report where the summary goes (standard error: standard output may be the file) */
  static int run(Request r, ConfigLoader env, PrintStream report) {
    if (r.output() != null && Files.exists(r.output()) && !r.force()) {
      report.println(Errors.initOutputExists(r.output().toString()));
      return ExitCode.USAGE.code;
    }
    InitSource source = InitSource.of(r.bootstrap(), r.config(), r.registryUrl(), env);
    Set<String> topics;
    Map<String, TopicSampler.Sample> samples;
    DebeziumTopics.Selection selection;
    try {
      topics = KafkaCheck.topics(source.bootstrap(), source.properties(), KafkaCheck.TIMEOUT);
      selection = DebeziumTopics.select(topics, r.include(), r.exclude());
      samples = TopicSampler.sample(source.bootstrap(), source.properties(), selection.candidates(), r.sampleTimeout());
    } catch (KafkaCheck.Failed e) {
      report.println(Errors.initKafkaFailed(e.getMessage(), source.configFile()));
      return ExitCode.CHECK_FAILED.code;
    } catch (KafkaException e) { // the consumer, after the listing worked: ACLs on reading, a broker gone meanwhile
      report.println(Errors.initKafkaFailed(KafkaCheck.failure(e, source.bootstrap(),
          BootstrapProbe.probe(source.bootstrap(), KafkaCheck.TIMEOUT), source.properties(), KafkaCheck.TIMEOUT), source.configFile()));
      return ExitCode.CHECK_FAILED.code;
    }
    Map<String, String> skipped = new TreeMap<>(selection.skipped()); // by name, however each was found
    List<StarterConfig.Entry> entries = entries(selection, samples, schemas(source), skipped);
    if (entries.isEmpty()) {
      List<String> why = skipped.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList();
      report.println(Errors.initNoTableTopics(source.bootstrap(), topics.size(), selection.outsidePatterns(), why));
      return ExitCode.CHECK_FAILED.code;
    }
    String yaml = StarterConfig.render(source, entries, skipped, BootstrapProbe.seconds(r.sampleTimeout()) + " s");
    write(yaml, r.output());
    report.println(summary(r, entries, skipped, selection));
    return ExitCode.OK.code;
  }

  /** The table topics, in name order; Debezium's own topics that a record revealed join {@code skipped}. */
  private static List<StarterConfig.Entry> entries(DebeziumTopics.Selection selection, Map<String, TopicSampler.Sample> samples,
      IntFunction<Schema> schemas, Map<String, String> skipped) {
    List<StarterConfig.Entry> entries = new ArrayList<>();
    for (String topic : selection.candidates()) {
      TopicSampler.Sample sample = samples.get(topic);
      SampleShape shape = SampleShape.of(sample, schemas);
      String reason = switch (shape.kind()) {
        case SCHEMA_CHANGE -> "schema changes";
        case TRANSACTION -> "transaction metadata";
        case HEARTBEAT -> "heartbeat";
        case TABLE -> shape.format() == SampleShape.Format.NOT_DECODABLE ? "records neither JSON nor Confluent Avro"
            // Named like a connector's prefix and showing no change event: its schema-change topic.
            : selection.prefixNamed().contains(topic) && sample.status() != TopicSampler.Status.READ ? "schema changes" : null;
      };
      if (reason != null) {
        skipped.put(topic, reason);
      } else {
        entries.add(new StarterConfig.Entry(topic, sample.status(), shape));
      }
    }
    return entries;
  }

  /** The registry's schemas by id, or null without a registry; a lookup that fails only loses that key's fields. */
  private static IntFunction<Schema> schemas(InitSource source) {
    if (source.registry() == null) {
      return null;
    }
    SchemaRegistryClient client = new SchemaRegistryClient(source.registry());
    return id -> {
      try {
        return client.schemaById(id);
      } catch (DecodeException | LakesinkException e) {
        return null;
      }
    };
  }

  /** Into a temporary file beside the target, then moved over it: an interrupted run leaves no half file. */
  private static void write(String yaml, Path output) {
    if (output == null) {
      System.out.print(yaml);
      System.out.flush();
      return;
    }
    try {
      Path dir = output.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path temp = Files.createTempFile(dir, ".lakesink-init", ".yaml");
      Files.writeString(temp, yaml, StandardCharsets.UTF_8);
      Files.move(temp, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + output + ": " + e.getMessage(), e);
    }
  }

  private static String summary(Request r, List<StarterConfig.Entry> entries, Map<String, String> skipped,
      DebeziumTopics.Selection selection) {
    long unseen = entries.stream().filter(e -> e.sampled() != TopicSampler.Status.READ).count();
    return (r.output() == null ? "Wrote" : "Wrote " + r.output() + ":") + " " + entries.size() + " subscription"
        + (entries.size() == 1 ? "" : "s") + (unseen == 0 ? "" : " (" + unseen + " without a record to read their key and format from)")
        + "; skipped " + skipped.size() + " topic" + (skipped.size() == 1 ? "" : "s") + " that carry no table's events"
        + (selection.outsidePatterns() == 0 ? "" : " and left out " + selection.outsidePatterns() + " by --include/--exclude")
        + ". Fill in storage, then run: bin/lakesink check --config " + (r.output() == null ? "<file>" : r.output()) + ".";
  }
}

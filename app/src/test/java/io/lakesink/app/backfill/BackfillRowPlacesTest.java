package io.lakesink.app.backfill;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.backfill.Backfill;
import io.lakesink.backfill.BackfillProgress;
import io.lakesink.backfill.BackfillSource;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backfill row the table cannot take is named by its file and its 1-based line, as an editor
 * shows it (headers, blank lines and line breaks inside quoted fields counted), never by its
 * count among the rows.
 */
class BackfillRowPlacesTest {
  @TempDir Path dir;
  private final Subscription items = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
  private DeltaTable table;

  /** The table the stream created: id bigint, note string, amount int. */
  @BeforeEach
  void streamCreatesTheTable() {
    LocalStorage local = new LocalStorage(dir.resolve("tables"), "lakesink");
    table = new DeltaTable(KernelEngine.create(local), local.tableLocation("items"));
    MergeDelivery stream = new MergeDelivery(items, table, null,
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(local)), MergeSettings.DEFAULT);
    stream.accept(event("t", 0, 0, Operation.CREATE, 10L, row("id", 1L, "note", "x", "amount", 7)));
    stream.flush();
  }

  @Test
  void aCsvValueThatDoesNotFitNamesTheFileAndTheLineItIsOn() throws Exception {
    Path csv = dir.resolve("orders.csv");
    // Line 1 the header, lines 2-3 one record (a quoted line break), line 4 the bad one.
    Files.writeString(csv, "id,note,amount\n2,\"two\nlines\",8\n3,fine,lots\n4,after,9\n");
    String message = refusal(new CsvSource(List.of(csv)));
    assertTrue(message.startsWith("Cannot write line 4 of " + csv.toAbsolutePath() + " into table items: column amount"), message);
    assertFalse(message.contains("lots"), "values stay out of messages: " + message);
  }

  @Test
  void aJsonLineThatDoesNotFitNamesTheFileAndTheLine() throws Exception {
    Path jsonl = dir.resolve("dump.jsonl");
    Files.writeString(jsonl, "{\"id\":2,\"amount\":8}\n\n{\"id\":3,\"amount\":99999999999}\n");
    String message = refusal(new JsonLinesSource(List.of(jsonl)));
    assertTrue(message.startsWith("Cannot write line 3 of " + jsonl.toAbsolutePath() + " into table items: column amount"), message);
    assertFalse(message.contains("99999999999"), "values stay out of messages: " + message);
  }

  /** A typed row the stream's own code refuses: its message names the line too, not a Kafka offset. */
  @Test
  void aTypedJsonLineTheStreamWouldRefuseNamesTheLineThroughout() throws Exception {
    Path jsonl = dir.resolve("typed.jsonl");
    Files.writeString(jsonl, "{\"id\":2,\"amount\":8}\n"
        + "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"id\",\"type\":\"int64\"},{\"field\":\"amount\",\"type\":\"string\"}]},"
        + "\"payload\":{\"id\":3,\"amount\":\"many\"}}\n");
    String message = refusal(new JsonLinesSource(List.of(jsonl)));
    String place = "line 2 of " + jsonl.toAbsolutePath();
    assertTrue(message.startsWith("Cannot write " + place + " into table items: "), message);
    assertTrue(message.contains("the record at " + place + " carries a string value"), message);
    assertFalse(message.contains("offset") || message.contains("partition"), "no Kafka position: " + message);
    assertFalse(message.contains(".."), "one full stop between sentences: " + message);
  }

  /** Parquet has no lines: rows are counted from 1 in each file. */
  @Test
  void aParquetRowIsNamedByItsFileAndItsRowInThatFile() throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; required int64 amount; }");
    Path first = parquet("a.parquet", schema, new long[][] {{2, 8}, {3, 9}});
    Path second = parquet("b.parquet", schema, new long[][] {{4, 10}, {5, 99_999_999_999L}});
    String message = refusal(new ParquetSource(List.of(first, second)));
    String place = "row 2 of " + second;
    assertTrue(message.startsWith("Cannot write " + place + " into table items: "), message);
    assertTrue(message.contains("the record at " + place), message);
    assertFalse(message.contains("99999999999"), "values stay out of messages: " + message);
  }

  private Path parquet(String name, MessageType schema, long[][] rows) throws Exception {
    Path file = dir.resolve(name);
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri())).withType(schema).build()) {
      for (long[] r : rows) {
        writer.write(groups.newGroup().append("id", r[0]).append("amount", r[1]));
      }
    }
    return file;
  }

  private String refusal(BackfillSource source) {
    try (source) {
      Backfill backfill = new Backfill(items, table, source, new Backfill.Settings("b", 100, false, false), BackfillProgress.NONE,
          Clock.systemUTC());
      return assertThrows(ConfigurationException.class, backfill::run).getMessage();
    }
  }
}

package io.lakesink.app.backfill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.backfill.SourceRow;
import io.lakesink.error.ConfigurationException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSourcesTest {
  @TempDir Path dir;

  @Test
  void csvReadsQuotesLineBreaksAndTellsNullFromAnEmptyString() throws Exception {
    Path f = dir.resolve("a.csv");
    Files.writeString(f, "\uFEFFid,note,qty\r\n1,\"say \"\"hi\"\"\nand bye\",3\r\n2,,\r\n\n3,\"\",\"4,5\"\n4,last,7");
    try (CsvSource csv = new CsvSource(List.of(f))) {
      List<SourceRow> rows = csv.next(10);
      assertEquals(List.of("id", "note", "qty"), rows.get(0).schema().columns().stream().map(c -> c.name()).toList());
      assertFalse(rows.get(0).schema().typed(), "text, read in the type of its column");
      assertEquals(List.of("1", "say \"hi\"\nand bye", "3"), Arrays.asList(rows.get(0).values()));
      assertEquals(Arrays.asList("2", null, null), Arrays.asList(rows.get(1).values()), "empty unquoted fields are null");
      assertEquals(List.of("3", "", "4,5"), Arrays.asList(rows.get(2).values()), "\"\" is an empty string");
      assertEquals(List.of("4", "last", "7"), Arrays.asList(rows.get(3).values()), "the last line needs no line break");
      assertEquals(4, rows.size(), "blank lines are skipped");
      assertEquals(0, csv.next(10).size());
    }
  }

  @Test
  void filesOfAGlobAreReadInNameOrderAndResumeSkipsAcrossThem() throws Exception {
    Files.writeString(dir.resolve("b.csv"), "id\n3\n4\n");
    Files.writeString(dir.resolve("a.csv"), "id\n1\n2\n");
    Files.writeString(dir.resolve("c.txt"), "id\n9\n");
    List<Path> files = SourceFiles.expand(dir.resolve("*.csv").toString());
    assertEquals(List.of(dir.resolve("a.csv").toAbsolutePath(), dir.resolve("b.csv").toAbsolutePath()), files);
    try (CsvSource csv = new CsvSource(files)) {
      assertEquals(OptionalLong.of(4), csv.estimatedRows());
      csv.skip(3);
      List<SourceRow> rest = csv.next(10);
      assertEquals(1, rest.size());
      assertEquals("4", rest.get(0).values()[0]);
    }
    ConfigurationException none = assertThrows(ConfigurationException.class, () -> SourceFiles.expand(dir.resolve("*.parquet").toString()));
    assertTrue(none.getMessage().contains("no file matches"), none.getMessage());
  }

  @Test
  void aRowWithMoreFieldsThanItsHeaderIsRefusedWithItsLine() throws Exception {
    Path f = dir.resolve("bad.csv");
    Files.writeString(f, "id,name\n1,a\n2,b,c\n");
    try (CsvSource csv = new CsvSource(List.of(f))) {
      ConfigurationException e = assertThrows(ConfigurationException.class, () -> csv.next(10));
      assertTrue(e.getMessage().contains("line 3: has 3 fields where its header has 2"), e.getMessage());
    }
  }

  @Test
  void jsonLinesAreDecodedAsTheStreamDecodesRecordsAndATopicDumpsDeletesAreSkipped() throws Exception {
    Path f = dir.resolve("dump.jsonl");
    Files.writeString(f, "{\"id\":1,\"name\":\"a\",\"qty\":2.50}\n"
        + "{\"before\":{\"id\":2},\"after\":null,\"source\":{\"ts_ms\":5},\"op\":\"d\"}\n"
        + "{\"source\":{\"ts_ms\":6},\"op\":\"t\",\"ts_ms\":7}\n"
        + "{\"before\":null,\"after\":{\"id\":3,\"name\":\"c\"},\"source\":{\"ts_ms\":5},\"op\":\"c\"}\n");
    try (JsonLinesSource jsonl = new JsonLinesSource(List.of(f))) {
      assertEquals(OptionalLong.of(4), jsonl.estimatedRows());
      List<SourceRow> rows = jsonl.next(10);
      assertEquals(2, rows.size(), "the delete and the truncate (no row) are skipped");
      assertEquals(List.of("1", "a", "2.50"), Arrays.asList(rows.get(0).values()), "without a schema, text as the stream reads it");
      assertEquals(List.of("3", "c"), Arrays.asList(rows.get(1).values()), "an envelope's after image");
    }
    Files.writeString(f, "{\"id\":1}\n[1,2]\n");
    try (JsonLinesSource jsonl = new JsonLinesSource(List.of(f))) {
      ConfigurationException e = assertThrows(ConfigurationException.class, () -> jsonl.next(10));
      assertTrue(e.getMessage().contains("line 2: cannot be read as one JSON object"), e.getMessage());
    }
  }

  @Test
  void progressIsABarOnATerminalAndPlainLinesOtherwise() {
    Clock start = Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ProgressLine terminal = new ProgressLine(new PrintStream(out, true, StandardCharsets.UTF_8), true, start);
    terminal.started("b", 0, OptionalLong.of(1000));
    String line = terminal.line(250, 240, start.millis() + 5_000);
    assertEquals("[########----------------------] 25% 250/1000 rows, 50 rows/s, ETA 0:00:15, 240 written", line);
    terminal.committed(250, 240, 3);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("\r[#"), "redrawn in place");

    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    ProgressLine log = new ProgressLine(new PrintStream(plain, true, StandardCharsets.UTF_8), false, start);
    log.started("b", 100, OptionalLong.empty());
    assertEquals("300 rows, 40 rows/s, 200 written", log.line(300, 200, start.millis() + 5_000), "no total: no bar, no ETA");
    log.committed(300, 200, 3); // within 10 s of the start: no line
    log.finished(300, 200);
    String text = plain.toString(StandardCharsets.UTF_8);
    assertFalse(text.contains("\r"));
    assertTrue(text.contains("resuming after row 100") && text.contains("done, 300 source rows, 200 rows written"), text);
  }
}

package io.lakesink.app.backfill;

import io.lakesink.backfill.BackfillSource;
import io.lakesink.backfill.SourceRow;
import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.kafka.decode.DebeziumJsonDecoder;
import io.lakesink.kafka.decode.DecodeException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * JSON lines: one object per line, decoded by the stream's own decoder
 * ({@link DebeziumJsonDecoder}) as a record value: a plain object is a flattened row without a
 * schema (text read in its column's type), and a line that is a Debezium envelope or a Kafka
 * Connect {@code schema}/{@code payload} record (a topic dump) is read with its types, exactly as
 * the worker reads it. Blank lines, tombstones and delete events are skipped.
 */
final class JsonLinesSource implements BackfillSource {
  private final List<Path> files;
  private final DebeziumJsonDecoder decoder = new DebeziumJsonDecoder();
  private int fileIndex = -1;
  private BufferedReader reader;
  private String fileName;
  private long line;

  JsonLinesSource(List<Path> files) {
    this.files = List.copyOf(files);
  }

  @Override
  public String identity() {
    return "jsonl " + files;
  }

  @Override
  public String describe() {
    return files.size() == 1 ? files.get(0).toString() : files.size() + " JSON lines files (" + files.get(0) + ", …)";
  }

  @Override
  public OptionalLong estimatedRows() {
    long lines = 0;
    for (Path f : files) {
      try (var stream = Files.lines(f, StandardCharsets.UTF_8)) {
        lines += stream.filter(l -> !l.isBlank()).count();
      } catch (IOException | UncheckedIOException e) {
        return OptionalLong.empty();
      }
    }
    return OptionalLong.of(lines);
  }

  @Override
  public List<SourceRow> next(int max) {
    List<SourceRow> out = new ArrayList<>(Math.min(max, 10_000));
    try {
      while (out.size() < max) {
        if (reader == null) {
          if (++fileIndex >= files.size()) {
            break;
          }
          reader = Files.newBufferedReader(files.get(fileIndex), StandardCharsets.UTF_8);
          fileName = files.get(fileIndex).toString();
          line = 0;
        }
        String text = reader.readLine();
        if (text == null) {
          reader.close();
          reader = null;
          continue;
        }
        line++;
        if (text.isBlank()) {
          continue;
        }
        ChangeEvent e = decode(text);
        // A topic dump's deletes hold a row that is gone; a truncate holds none (a backfill loads
        // rows, it does not replay a stream: as before truncates were decoded, it is passed over).
        if (e != null && !e.isDelete() && !e.isTruncate()) {
          out.add(new SourceRow(e.schema(), e.values(), new SourceRow.Origin(fileName, true, line)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + files.get(fileIndex), e);
    }
    return out;
  }

  private ChangeEvent decode(String text) {
    try {
      // The position only names the line in the decoder's messages.
      return decoder.decode(new SourcePosition(files.get(fileIndex).getFileName().toString(), 0, line),
          null, text.getBytes(StandardCharsets.UTF_8));
    } catch (DecodeException e) {
      throw SourceErrors.badFile(files.get(fileIndex), line, "cannot be read as one JSON object (" + e.getMessage() + ")");
    }
  }

  @Override
  public void close() {
    try {
      if (reader != null) {
        reader.close();
      }
    } catch (IOException e) {
      // nothing was written through it
    }
  }
}

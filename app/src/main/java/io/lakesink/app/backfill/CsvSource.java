package io.lakesink.app.backfill;

import io.lakesink.backfill.BackfillSource;
import io.lakesink.backfill.SourceRow;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.RowSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * CSV files with a header line (RFC 4180: comma-separated, {@code "} quotes, {@code ""} inside
 * quotes, line breaks inside quotes). Values are text, read in the type of their column like the
 * stream's records without a schema; an empty unquoted field is null, {@code ""} an empty string.
 */
final class CsvSource implements BackfillSource {
  private final List<Path> files;
  private int fileIndex = -1;
  private BufferedReader reader;
  private RowSchema schema;
  private String fileName;
  /** The current line, and the line the last record started on (a quoted field may span lines). */
  private long line;
  private long recordLine;

  CsvSource(List<Path> files) {
    this.files = List.copyOf(files);
  }

  @Override
  public String identity() {
    return "csv " + files;
  }

  @Override
  public String describe() {
    return files.size() == 1 ? files.get(0).toString() : files.size() + " CSV files (" + files.get(0) + ", …)";
  }

  /** Line breaks less headers: exact unless quoted values hold line breaks. */
  @Override
  public OptionalLong estimatedRows() {
    long lines = 0;
    for (Path f : files) {
      try (InputStream in = Files.newInputStream(f)) {
        byte[] buf = new byte[1 << 16];
        int n;
        long fileLines = 0;
        int lastByte = '\n';
        while ((n = in.read(buf)) > 0) {
          for (int i = 0; i < n; i++) {
            if (buf[i] == '\n') fileLines++;
          }
          lastByte = buf[n - 1];
        }
        if (lastByte != '\n') fileLines++;
        lines += Math.max(0, fileLines - 1);
      } catch (IOException e) {
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
        if (reader == null && !openNext()) {
          break;
        }
        List<String> fields = record();
        if (fields == null) {
          reader.close();
          reader = null;
          continue;
        }
        if (fields.size() == 1 && fields.get(0) == null) {
          continue; // a blank line
        }
        if (fields.size() != schema.size()) {
          throw SourceErrors.badFile(files.get(fileIndex), recordLine, "has " + fields.size() + " fields where its header has " + schema.size());
        }
        out.add(new SourceRow(schema, fields.toArray(), new SourceRow.Origin(fileName, true, recordLine)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + files.get(fileIndex), e);
    }
    return out;
  }

  private boolean openNext() throws IOException {
    while (++fileIndex < files.size()) {
      reader = Files.newBufferedReader(files.get(fileIndex), StandardCharsets.UTF_8);
      fileName = files.get(fileIndex).toString();
      line = 0;
      List<String> header = record();
      if (header == null) {
        reader.close();
        reader = null;
        continue;
      }
      if (!header.isEmpty() && header.get(0) != null && header.get(0).startsWith("\uFEFF")) {
        header.set(0, header.get(0).substring(1)); // a byte order mark
      }
      List<Column> columns = new ArrayList<>();
      for (String name : header) {
        if (name == null || name.isBlank()) {
          throw SourceErrors.badFile(files.get(fileIndex), 1, "the header has an empty column name");
        }
        columns.add(new Column(name.trim(), ColumnType.STRING));
      }
      RowSchema next = new RowSchema(columns, false);
      // One instance per shape: the renderer caches per schema instance.
      schema = next.equals(schema) ? schema : next;
      return true;
    }
    return false;
  }

  /** The next record's fields, or null at the end of the file. */
  private List<String> record() throws IOException {
    int c = reader.read();
    if (c < 0) {
      return null;
    }
    line++;
    recordLine = line;
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    boolean inQuotes = false;
    while (true) {
      if (inQuotes) {
        if (c < 0) {
          throw SourceErrors.badFile(files.get(fileIndex), line, "a quoted field is not closed");
        }
        if (c == '"') {
          int d = reader.read();
          if (d == '"') {
            field.append('"');
          } else {
            inQuotes = false;
            c = d;
            continue;
          }
        } else {
          if (c == '\n') line++;
          field.append((char) c);
        }
      } else if (c == '"' && field.length() == 0 && !quoted) {
        inQuotes = true;
        quoted = true;
      } else if (c == ',' || c == '\n' || c < 0) {
        fields.add(quoted || field.length() > 0 ? field.toString() : null);
        field.setLength(0);
        quoted = false;
        if (c != ',') {
          return fields;
        }
      } else if (c == '\r') {
        // part of a CRLF line break
      } else {
        field.append((char) c);
      }
      c = reader.read();
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

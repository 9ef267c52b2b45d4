package io.lakesink.delta;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * Reads flat {@code int}, {@code bigint}, {@code boolean} and {@code string} columns of one
 * Parquet file page by page, straight from parquet-mr's pages: what a merge reads of every row of
 * a file (its key) and of the rows its batch changes (the ordering columns), and what a delete
 * lookup reads of a changelog (also {@code __deleted}).
 *
 * <p>Kernel's reader assembles every row of every requested column through parquet-mr's record
 * API and converters, and decodes a plain {@code bigint} through a stream a byte array at a time:
 * profiled, that was most of a merge's CPU per row; a string key cost a {@code String} per row
 * besides. Here a plain page (lakesink writes no dictionaries) is read from its buffer directly,
 * other encodings through parquet-mr's value readers; a string column's page is kept as its UTF-8
 * bytes with each value's start and length, so a key is tested without a {@code String}. A
 * column's page is only decoded when a row in it is asked for, so the ordering columns of the
 * pages without a changed row are never decompressed nor decoded.
 *
 * <p>Rows come back in file order, row group after row group, as Kernel returns them: a row's
 * position in the file is the count of rows before it. A column the file lacks reads null, as
 * with Kernel. Not thread-safe: one per file read.
 */
final class PageColumns implements AutoCloseable {
  private final ParquetFileReader reader;
  private final Cursor[] cursors;
  private final ColumnDescriptor[] descriptors;
  private long rowGroupRows;

  private PageColumns(ParquetFileReader reader, ColumnDescriptor[] descriptors) {
    this.reader = reader;
    this.descriptors = descriptors;
    this.cursors = new Cursor[descriptors.length];
  }

  /**
   * Opens the file for the columns, or returns null when one of them is not a flat column of a
   * type this reader decodes ({@link #readable}; the caller reads the file with Kernel instead).
   *
   * @param options Parquet's read options (codec settings), for this file only: the reader releases
   *     their codec factory when it closes, and that factory is not thread-safe
   * @param footers footers read before, found under {@code footerKey} ({@link ParquetFooters#key}),
   *     where this file's is kept once read; null to read it from the file
   */
  static PageColumns open(InputFile file, ParquetReadOptions options, List<Column> columns, ParquetFooters footers, String footerKey)
      throws IOException {
    ParquetMetadata known = footers == null ? null : footers.get(footerKey);
    ParquetFileReader reader;
    if (known != null) {
      org.apache.parquet.io.SeekableInputStream stream = file.newStream();
      try {
        reader = new ParquetFileReader(file, known, options, stream);
      } catch (IOException | RuntimeException e) {
        stream.close();
        throw e;
      }
    } else {
      reader = new ParquetFileReader(file, options);
      if (footers != null) {
        footers.put(footerKey, reader.getFooter());
      }
    }
    try {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      ColumnDescriptor[] descriptors = new ColumnDescriptor[columns.size()];
      List<ColumnDescriptor> requested = new ArrayList<>();
      for (int c = 0; c < columns.size(); c++) {
        Type field = field(schema, columns.get(c).name());
        if (field == null) {
          continue; // not in this file: reads null
        }
        if (!readable(field, columns.get(c).type())) {
          reader.close();
          return null;
        }
        descriptors[c] = schema.getColumnDescription(new String[] {field.getName()});
        requested.add(descriptors[c]);
      }
      reader.setRequestedSchema(requested);
      return new PageColumns(reader, descriptors);
    } catch (IOException | RuntimeException e) {
      reader.close();
      throw e;
    }
  }

  /** The file's top-level field of that name: exact, else ignoring case (Delta's names are case-insensitive). */
  private static Type field(MessageType schema, String name) {
    if (schema.containsField(name)) {
      return schema.getType(name);
    }
    for (Type t : schema.getFields()) {
      if (t.getName().equalsIgnoreCase(name)) {
        return t;
      }
    }
    return null;
  }

  /**
   * A flat, non-repeated INT32 column for an {@code int}, INT32 or INT64 for a {@code bigint},
   * BINARY for a {@code string}, BOOLEAN for a {@code boolean}.
   */
  private static boolean readable(Type field, ColumnType type) {
    if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
      return false;
    }
    PrimitiveTypeName physical = field.asPrimitiveType().getPrimitiveTypeName();
    return switch (type.kind()) {
      case INT -> physical == PrimitiveTypeName.INT32;
      case BIGINT -> physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64;
      case STRING -> physical == PrimitiveTypeName.BINARY;
      case BOOLEAN -> physical == PrimitiveTypeName.BOOLEAN;
      default -> false;
    };
  }

  /** Moves to the next row group; false past the last. Rows are then numbered from 0 within it. */
  boolean nextRowGroup() throws IOException {
    PageReadStore pages = reader.readNextRowGroup();
    if (pages == null) {
      return false;
    }
    rowGroupRows = pages.getRowCount();
    for (int c = 0; c < cursors.length; c++) {
      cursors[c] = descriptors[c] == null ? null : new Cursor(descriptors[c], pages.getPageReader(descriptors[c]));
    }
    return true;
  }

  /** The current row group's rows. */
  long rows() {
    return rowGroupRows;
  }

  /** Whether column {@code c} is null at {@code row} of the row group; rows asked never go back. */
  boolean isNull(int c, long row) throws IOException {
    return cursors[c] == null || cursors[c].isNull(row);
  }

  /** Integer column {@code c} at {@code row} (not null), or a boolean column's as 1 or 0; rows asked never go back. */
  long value(int c, long row) throws IOException {
    return cursors[c].value(row);
  }

  /** String column {@code c} at {@code row} (not null), decoded; rows asked never go back. */
  String string(int c, long row) throws IOException {
    Cursor cursor = cursors[c];
    int i = cursor.at(row);
    return new String(cursor.bytes, cursor.starts[i], cursor.lengths[i], StandardCharsets.UTF_8);
  }

  /**
   * Moves column {@code c} to the page holding {@code row} and decodes it, for a loop over a whole
   * page ({@link #pageValues}, {@link #pageNulls}) rather than a call per row: the index of
   * {@code row} in the page. Rows asked never go back. The column must be in the file.
   */
  int seek(int c, long row) throws IOException {
    return cursors[c].at(row);
  }

  /** Whether the file holds column {@code c} (a column it lacks is null in every row). */
  boolean holds(int c) {
    return cursors[c] != null;
  }

  /** The rows of column {@code c}'s current page: indexes below this are its rows. */
  int pageRows(int c) {
    return cursors[c].count;
  }

  /** An integer or boolean (0 or 1) column's current page's values by index (meaningless where null); valid until the next {@link #seek}. */
  long[] pageValues(int c) {
    return cursors[c].values;
  }

  /**
   * A string column's current page's UTF-8 bytes: value {@code i} is {@link #pageLengths}{@code [i]}
   * bytes from {@link #pageStarts}{@code [i]} (meaningless where null); valid until the next {@link #seek}.
   */
  byte[] pageBytes(int c) {
    return cursors[c].bytes;
  }

  int[] pageStarts(int c) {
    return cursors[c].starts;
  }

  int[] pageLengths(int c) {
    return cursors[c].lengths;
  }

  /** The current page's nulls by index, or null when it holds none; valid until the next {@link #seek}. */
  boolean[] pageNulls(int c) {
    return cursors[c].hasNulls ? cursors[c].nulls : null;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }

  /** One column of a row group: its pages in order, the current one decoded when first asked. */
  private static final class Cursor {
    private final ColumnDescriptor descriptor;
    private final PageReader pages;
    private final Dictionary dictionary;
    private final boolean int32;
    private final boolean binary;
    private final boolean bool;
    private DataPage page;
    /** The row group's row at the current page's first value, and the page's rows. */
    private long first;
    private int count;
    private boolean decoded;
    private long[] values = new long[0];
    /** A string column's page: its values' bytes, and where each value starts in them and how long it is. */
    private byte[] bytes = new byte[0];
    private int[] starts = new int[0];
    private int[] lengths = new int[0];
    private boolean[] nulls = new boolean[0];
    private boolean hasNulls;

    Cursor(ColumnDescriptor descriptor, PageReader pages) throws IOException {
      this.descriptor = descriptor;
      this.pages = pages;
      this.int32 = descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
      this.binary = descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
      this.bool = descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BOOLEAN;
      DictionaryPage d = pages.readDictionaryPage();
      this.dictionary = d == null ? null : d.getEncoding().initDictionary(descriptor, d);
    }

    boolean isNull(long row) throws IOException {
      int i = at(row); // first: it may decode a page into new arrays
      return hasNulls && nulls[i];
    }

    long value(long row) throws IOException {
      int i = at(row);
      return values[i];
    }

    /** The index in the decoded page of {@code row}, reading (and skipping) pages up to it. */
    private int at(long row) throws IOException {
      while (page == null || row >= first + count) {
        first += count;
        page = pages.readPage();
        if (page == null) {
          // A damaged file (fewer values than rows), as Kernel's reader would find it: not retried.
          throw new IllegalStateException("row " + row + " is past the column chunk of " + descriptor);
        }
        count = page.getValueCount(); // a flat column: one value per row
        decoded = false;
      }
      if (!decoded) {
        decode(page);
        decoded = true;
      }
      return (int) (row - first);
    }

    private void decode(DataPage p) throws IOException {
      int n = p.getValueCount();
      if (nulls.length < n) {
        nulls = new boolean[n];
        if (binary) {
          starts = new int[n];
          lengths = new int[n];
        } else {
          values = new long[n];
        }
      }
      int maxDefinition = descriptor.getMaxDefinitionLevel();
      if (p instanceof DataPageV1 v1) {
        ByteBufferInputStream in = v1.getBytes().toInputStream();
        // Repetition levels first (none for a flat column: the reader for level 0 reads nothing), then definition levels.
        ValuesReader repetition = v1.getRlEncoding().getValuesReader(descriptor, ValuesType.REPETITION_LEVEL);
        repetition.initFromPage(n, in);
        int present = n;
        hasNulls = false;
        if (maxDefinition > 0 && v1.getDlEncoding() == Encoding.RLE && allPresent(in, n, maxDefinition, true)) {
          in.skipFully(BytesUtils.readIntLittleEndian(in)); // the levels, length first: all say "present"
        } else {
          ValuesReader definition = v1.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
          definition.initFromPage(n, in);
          present = 0;
          for (int i = 0; i < n; i++) {
            nulls[i] = maxDefinition > 0 && definition.readInteger() < maxDefinition;
            present += nulls[i] ? 0 : 1;
          }
          hasNulls = present < n;
        }
        decodeValues(v1.getValueEncoding(), n, present, in);
      } else {
        DataPageV2 v2 = (DataPageV2) p;
        int present = n;
        hasNulls = false;
        if (maxDefinition > 0 && !allPresent(v2.getDefinitionLevels().toInputStream(), n, maxDefinition, false)) {
          RunLengthBitPackingHybridDecoder definition = new RunLengthBitPackingHybridDecoder(
              BytesUtils.getWidthFromMaxInt(maxDefinition), v2.getDefinitionLevels().toInputStream());
          present = 0;
          for (int i = 0; i < n; i++) {
            nulls[i] = definition.readInt() < maxDefinition;
            present += nulls[i] ? 0 : 1;
          }
          hasNulls = present < n;
        }
        decodeValues(v2.getDataEncoding(), n, present, v2.getData().toInputStream());
      }
    }

    /** The page's {@code present} non-null values into their rows' slots. */
    private void decodeValues(Encoding encoding, int n, int present, ByteBufferInputStream in) throws IOException {
      if (binary) {
        decodeStrings(encoding, n, present, in);
        return;
      }
      if (bool) {
        decodeBooleans(encoding, n, present, in);
        return;
      }
      if (encoding == Encoding.PLAIN) {
        // The common case, and lakesink's own files: little-endian values one after the other.
        ByteBuffer b = in.slice(present * (int32 ? 4 : 8)).order(ByteOrder.LITTLE_ENDIAN);
        if (!hasNulls && !int32) {
          b.asLongBuffer().get(values, 0, n); // one bulk copy
          return;
        }
        for (int i = 0; i < n; i++) {
          if (!hasNulls || !nulls[i]) {
            values[i] = int32 ? b.getInt() : b.getLong();
          }
        }
        return;
      }
      ValuesReader reader = encoding.usesDictionary()
          ? encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary)
          : encoding.getValuesReader(descriptor, ValuesType.VALUES);
      reader.initFromPage(present, in);
      for (int i = 0; i < n; i++) {
        if (!hasNulls || !nulls[i]) {
          values[i] = int32 ? reader.readInteger() : reader.readLong();
        }
      }
    }

    /** A boolean page's values as 1 or 0: plain, one bit per value from the lowest; else through parquet-mr's reader. */
    private void decodeBooleans(Encoding encoding, int n, int present, ByteBufferInputStream in) throws IOException {
      if (encoding == Encoding.PLAIN) {
        ByteBuffer b = in.slice((present + 7) / 8);
        int base = b.position();
        int j = 0;
        for (int i = 0; i < n; i++) {
          if (!hasNulls || !nulls[i]) {
            values[i] = (b.get(base + (j >>> 3)) >>> (j & 7)) & 1;
            j++;
          }
        }
        return;
      }
      ValuesReader reader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
      reader.initFromPage(present, in);
      for (int i = 0; i < n; i++) {
        if (!hasNulls || !nulls[i]) {
          values[i] = reader.readBoolean() ? 1 : 0;
        }
      }
    }

    /**
     * A string page's values, each as its start and length in {@link #bytes}: a plain page's
     * values are a length (four bytes, little-endian) and the bytes, one after the other; other
     * encodings (a dictionary, another writer's) are copied out of parquet-mr's reader.
     */
    private void decodeStrings(Encoding encoding, int n, int present, ByteBufferInputStream in) throws IOException {
      if (encoding == Encoding.PLAIN) {
        // Copied out whole (one copy of the page, not one per value): the page's buffer is
        // parquet-mr's, and other columns' pages are read while this one's values are in use.
        int size = (int) in.available();
        if (bytes.length < size) {
          bytes = new byte[Math.max(size, bytes.length * 2)];
        }
        in.slice(size).get(bytes, 0, size);
        int at = 0;
        for (int i = 0; i < n; i++) {
          if (!hasNulls || !nulls[i]) {
            if (at + 4 > size) {
              throw new IllegalStateException("a string value past the end of its page in " + descriptor);
            }
            int length = (bytes[at] & 0xff) | (bytes[at + 1] & 0xff) << 8 | (bytes[at + 2] & 0xff) << 16 | (bytes[at + 3] & 0xff) << 24;
            if (length < 0 || at + 4 + length > size) {
              throw new IllegalStateException("a string value past the end of its page in " + descriptor);
            }
            starts[i] = at + 4;
            lengths[i] = length;
            at += 4 + length;
          }
        }
        return;
      }
      ValuesReader reader = encoding.usesDictionary()
          ? encoding.getDictionaryBasedValuesReader(descriptor, ValuesType.VALUES, dictionary)
          : encoding.getValuesReader(descriptor, ValuesType.VALUES);
      reader.initFromPage(present, in);
      byte[] out = bytes.length >= 16 ? bytes : new byte[1024];
      int at = 0;
      for (int i = 0; i < n; i++) {
        if (!hasNulls || !nulls[i]) {
          org.apache.parquet.io.api.Binary value = reader.readBytes();
          int length = value.length();
          if (at + length > out.length) {
            out = java.util.Arrays.copyOf(out, Math.max(out.length * 2, at + length));
          }
          value.toByteBuffer().get(out, at, length);
          starts[i] = at;
          lengths[i] = length;
          at += length;
        }
      }
      bytes = out;
    }

    /**
     * Whether a page's definition levels say every one of its {@code n} values is present: they
     * start with one run-length-encoded run of {@code maxDefinition} covering the page (how
     * parquet-mr writes a page without nulls). Then no level needs decoding one by one (through
     * parquet-mr's decoder that was a tenth of a merge). Reads ahead and goes back: {@code in} is
     * where it was.
     *
     * @param lengthFirst the levels are preceded by their length (data page v1)
     */
    private static boolean allPresent(ByteBufferInputStream in, int n, int maxDefinition, boolean lengthFirst) throws IOException {
      in.mark(Integer.MAX_VALUE);
      try {
        if (lengthFirst) {
          BytesUtils.readIntLittleEndian(in);
        }
        int header = BytesUtils.readUnsignedVarInt(in);
        return (header & 1) == 0 // a run of one repeated value, not bit-packed values
            && (header >>> 1) >= n
            && BytesUtils.readIntLittleEndianPaddedOnBitWidth(in, BytesUtils.getWidthFromMaxInt(maxDefinition)) == maxDefinition;
      } finally {
        in.reset();
      }
    }
  }
}

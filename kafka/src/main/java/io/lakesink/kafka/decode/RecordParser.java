package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.ErrorReportConfiguration;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.JsonReadContext;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import com.fasterxml.jackson.core.util.BufferRecycler;
import java.io.IOException;

/**
 * One decoder's JSON parser, set over each record in turn instead of built for each. Jackson
 * builds a parser with an I/O context, a symbol table, a quad buffer, a text buffer and a chain
 * of read contexts, after sniffing the input's encoding: about 11 % of the worker's allocation
 * and several per cent of its CPU when done for every record. Jackson has no call that points a
 * parser at new input, so {@link Reused} resets the state its own constructor sets (all of it
 * protected fields of Jackson 2's parser classes; {@code RecordParserTest} fails if a version
 * no longer reads records identically after reuse).
 *
 * <p>Not thread-safe, like the decoder that owns it. A parser asked for while the reused one is
 * open (a part of the record read again during the main pass) is a fresh one, as is a parser for
 * input that does not start with four ASCII bytes: the factory's encoding detection would then
 * have a say (a byte-order mark, UTF-16 or UTF-32), and only the factory's parser decides exactly
 * as before.
 */
final class RecordParser {
  /**
   * Records read by one parser before it is replaced: its symbol table keeps every field name it
   * met, and a fresh one bounds that for streams whose names keep changing (the factory's own
   * table drops what it learnt past 6,000 names). One parser per this many records costs nothing.
   */
  static final int RECORDS_PER_PARSER = 1_000;

  /**
   * Characters of buffer a parser may keep between records. A long value or name grows its
   * buffers (up to 64K characters), and a decoder lives as long as the worker: a parser that
   * grew past this is replaced, so an idle topic's decoders do not hold them. (Built per record,
   * parsers handed them back to one recycler per thread instead.)
   */
  static final int KEPT_BUFFER_CHARS = 16_384;

  private static final JsonFactory FACTORY = JsonTokens.MAPPER.getFactory();

  private final ByteQuadsCanonicalizer rootSymbols = ByteQuadsCanonicalizer.createRoot();
  private final BufferRecycler buffers = new BufferRecycler(); // its own: the parser is never closed for real
  private Reused parser;
  private int uses;

  /** A parser over {@code bytes[start..end)}, positioned before its first token; close it after use. */
  JsonParser open(byte[] bytes, int start, int end) throws IOException {
    if ((parser != null && parser.open) || !plainAscii(bytes, start, end)) {
      return JsonTokens.parser(bytes, start, end);
    }
    if (parser == null || uses >= RECORDS_PER_PARSER || parser.oversized()) {
      if (parser != null) {
        parser.releaseSymbols();
      }
      parser = new Reused(context(), FACTORY.getParserFeatures(), rootSymbols.makeChild(FACTORY.getFactoryFeatures()));
      uses = 0;
    }
    uses++;
    parser.over(bytes, start, end);
    return parser;
  }

  /**
   * Whether the factory would surely read this input as UTF-8 without a byte-order mark: its
   * detection looks at the first four bytes only, and finds that when none is 0 or above 127.
   */
  private static boolean plainAscii(byte[] bytes, int start, int end) {
    if (end - start < 4) {
      return false;
    }
    for (int i = start; i < start + 4; i++) {
      if (bytes[i] <= 0) { // 0, or a byte ≥ 128 (negative as a Java byte)
        return false;
      }
    }
    return true;
  }

  private IOContext context() {
    // Redacted, as the factory's own contexts describe their input by default: and a context
    // that referred to the input would keep the first record's fetch buffer for the parser's life.
    // The error report configuration is the default one the mapper's factory has.
    return new IOContext(FACTORY.streamReadConstraints(), FACTORY.streamWriteConstraints(),
        ErrorReportConfiguration.defaults(), buffers, ContentReference.redacted(), false);
  }

  /** Jackson's UTF-8 parser over a byte range, reset for each record. */
  private static final class Reused extends UTF8StreamJsonParser {
    private static final byte[] NO_INPUT = new byte[0];
    private final JsonReadContext root;
    boolean open;

    Reused(IOContext context, int features, ByteQuadsCanonicalizer symbols) {
      super(context, features, null, JsonTokens.MAPPER, symbols, NO_INPUT, 0, 0, false);
      root = _parsingContext;
    }

    /** What the constructor sets for an input of {@code bytes[start..end)}, and nothing left of the last. */
    void over(byte[] bytes, int start, int end) {
      _inputBuffer = bytes;
      _inputPtr = start;
      _inputEnd = end;
      _currInputProcessed = -start; // locations count bytes from the record's start
      _currInputRow = 1;
      _currInputRowStart = start;
      _tokenInputTotal = 0;
      _tokenInputRow = 1;
      _tokenInputCol = 0;
      _parsingContext = root; // its child contexts are reset as they are entered
      _currToken = null;
      _lastClearedToken = null;
      _nextToken = null;
      _tokenIncomplete = false;
      _tokenCount = 0;
      _nameCopied = false;
      _numTypesValid = NR_UNKNOWN;
      _numberBigInt = null;
      _numberBigDecimal = null;
      _numberString = null;
      _numberIsNaN = false;
      _numberNegative = false;
      _binaryValue = null;
      _textBuffer.resetWithEmpty();
      _closed = false;
      open = true;
    }

    /** Ends this record's use; the record's bytes (a fetch buffer) are no longer referred to. */
    @Override
    public void close() {
      _inputBuffer = NO_INPUT;
      _inputPtr = 0;
      _inputEnd = 0;
      _textBuffer.resetWithEmpty();
      open = false;
    }

    /** Whether a long value or name grew this parser's buffers past what is kept between records. */
    boolean oversized() {
      char[] text = _textBuffer.getBufferWithoutReset();
      return text != null && text.length > KEPT_BUFFER_CHARS
          || _nameCopyBuffer != null && _nameCopyBuffer.length > KEPT_BUFFER_CHARS
          || _quadBuffer.length > KEPT_BUFFER_CHARS / 2; // a quad holds 4 bytes of a name
    }

    /** Hands the names this parser learnt to the root table (which keeps at most 6,000). */
    void releaseSymbols() {
      _symbols.release();
    }
  }
}

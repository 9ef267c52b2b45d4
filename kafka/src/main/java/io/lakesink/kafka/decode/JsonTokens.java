package io.lakesink.kafka.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;

/**
 * What the streaming decoder reads from the parser's current token, each the same as the tree
 * the decoder used to build would have given ({@code JsonNode.asText}, {@code longValue}, …),
 * so a record decodes to the same event either way.
 */
final class JsonTokens {
  /**
   * The one mapper: nested objects and schemas are still read as trees. Decimals stay exact:
   * without a schema, 12.50 must read "12.50", not a double's "12.5".
   */
  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

  private JsonTokens() {}

  static JsonParser parser(byte[] bytes, int start, int end) throws IOException {
    return MAPPER.createParser(bytes, start, end - start);
  }

  /** The byte offset in the whole record where the current token starts. */
  static int tokenStart(JsonParser p, int base) {
    return base + (int) p.currentTokenLocation().getByteOffset();
  }

  /** The byte offset in the whole record just past what the parser has read. */
  static int position(JsonParser p, int base) {
    return base + (int) p.currentLocation().getByteOffset();
  }

  /**
   * The value at the current token as a tree: scalars without the tree machinery, a string that
   * repeats with one {@code String} ({@link RepeatedText}).
   */
  static JsonNode node(JsonParser p) throws IOException {
    return switch (p.currentToken()) {
      case VALUE_NULL -> NullNode.instance;
      case VALUE_STRING -> TextNode.valueOf(RepeatedText.ofThisThread().text(p));
      case VALUE_TRUE -> BooleanNode.TRUE;
      case VALUE_FALSE -> BooleanNode.FALSE;
      case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
        case INT -> IntNode.valueOf(p.getIntValue());
        case LONG -> LongNode.valueOf(p.getLongValue());
        default -> BigIntegerNode.valueOf(p.getBigIntegerValue());
      };
      case VALUE_NUMBER_FLOAT -> DecimalNode.valueOf(p.getDecimalValue()); // USE_BIG_DECIMAL_FOR_FLOATS
      default -> MAPPER.readTree(p); // an object or array; leaves the parser on its last token
    };
  }

  /** {@code JsonNode.getNodeType()} of the value at the current token. */
  static JsonNodeType type(JsonToken t) {
    return switch (t) {
      case START_OBJECT -> JsonNodeType.OBJECT;
      case START_ARRAY -> JsonNodeType.ARRAY;
      case VALUE_STRING -> JsonNodeType.STRING;
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> JsonNodeType.NUMBER;
      case VALUE_TRUE, VALUE_FALSE -> JsonNodeType.BOOLEAN;
      case VALUE_NULL -> JsonNodeType.NULL;
      default -> JsonNodeType.POJO; // not produced by JSON text
    };
  }

  /**
   * {@code JsonNode.asText(null)} of a scalar: null for JSON null; an object or array gives "".
   * Only compared with codes such as "c", so any number's text will do.
   */
  static String asText(JsonParser p) throws IOException {
    return switch (p.currentToken()) {
      case VALUE_NULL -> null;
      case START_OBJECT, START_ARRAY -> "";
      case VALUE_STRING -> p.getTextLength() == 1 ? oneChar(p.getTextCharacters()[p.getTextOffset()], p) : p.getText();
      default -> p.getText();
    };
  }

  /** Strings of one ASCII character, shared: every event's op code is one, and a String for each was 1 % of allocation. */
  private static final String[] ONE_CHAR = new String[128];

  static {
    for (char c = 0; c < ONE_CHAR.length; c++) {
      ONE_CHAR[c] = String.valueOf(c);
    }
  }

  private static String oneChar(char c, JsonParser p) throws IOException {
    return c < ONE_CHAR.length ? ONE_CHAR[c] : p.getText();
  }

  /** An epoch-ms field: an integer (a huge one truncated, as {@code longValue}), or a string of one. */
  static Long longOrNull(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.VALUE_NUMBER_INT) {
      return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue().longValue() : p.getLongValue();
    }
    if (t == JsonToken.VALUE_STRING) {
      try {
        return Long.parseLong(p.getText());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}

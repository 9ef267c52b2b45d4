package io.lakesink.kafka.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTokensTest {
  /** An op code's text as JsonNode.asText gives it; one ASCII character is a shared String. */
  @Test
  void asTextOfOpCodes() throws IOException {
    assertEquals("c", asText("\"c\""));
    assertSame(asText("\"c\""), asText("\"\\u0063\""), "one ASCII character, however written, is the one shared String");
    assertEquals("\u00e9", asText("\"\u00e9\""));
    assertEquals("\u20ac", asText("\"\u20ac\""));
    assertEquals("cu", asText("\"cu\""));
    assertEquals("", asText("\"\""));
    assertEquals("7", asText("7"));
    assertEquals("", asText("{\"a\":1}"));
    assertNull(asText("null"));
  }

  private static String asText(String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    try (JsonParser p = JsonTokens.parser(bytes, 0, bytes.length)) {
      p.nextToken();
      return JsonTokens.asText(p);
    }
  }
}

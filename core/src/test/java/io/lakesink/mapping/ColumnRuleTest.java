package io.lakesink.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.ColumnType;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ColumnRuleTest {
  @Test
  void everyDocumentedWordHasItsType() {
    assertEquals(ColumnType.BIGINT, ColumnRule.castType("long"));
    assertEquals(ColumnType.BIGINT, ColumnRule.castType("int"));
    assertEquals(ColumnType.DOUBLE, ColumnRule.castType("float"));
    assertEquals(ColumnType.BOOLEAN, ColumnRule.castType("bool"));
    assertEquals(ColumnType.DATE, ColumnRule.castType("date"));
    assertEquals(ColumnType.TIMESTAMP, ColumnRule.castType("datetime"));
    assertEquals(ColumnType.STRING, ColumnRule.castType("string"));
    assertEquals(ColumnType.STRING, ColumnRule.castType("decimal"));
    for (String word : ColumnRule.CAST_WORDS) {
      assertTrue(ColumnRule.castWord(word).isPresent(), word);
    }
  }

  /** Fails on the old code, where any unknown word (a typo too) silently meant string. */
  @Test
  void anUnknownWordIsNoCast() {
    assertEquals(Optional.empty(), ColumnRule.castWord("lnog"));
    assertEquals(Optional.empty(), ColumnRule.castWord("LONG"), "words are lowercase, as documented");
    String message = assertThrows(IllegalArgumentException.class, () -> ColumnRule.castType("integr")).getMessage();
    assertTrue(message.contains("'integr'") && message.contains("int, integer, long, bigint"), message);
  }
}

package io.lakesink.currentstate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** A follow keeps a column's repeated strings once, while the column has few distinct ones. */
class SharedStringsTest {
  @Test
  void aFewDistinctValuesAreSharedManyAreLeftAsRead() {
    ChangelogChanges.SharedStrings status = new ChangelogChanges.SharedStrings();
    String paid = new String("paid");
    assertSame(paid, status.of(paid));
    String again = new String("paid");
    assertSame(paid, status.of(again), "an equal value read again is the first one");
    assertEquals(42L, status.of(42L), "other values as they are");
    assertNull(status.of(null));

    ChangelogChanges.SharedStrings ids = new ChangelogChanges.SharedStrings();
    for (int i = 0; i <= ChangelogChanges.SharedStrings.LIMIT; i++) {
      ids.of("id-" + i);
    }
    String first = new String("id-0");
    String read = (String) ids.of(first);
    assertSame(first, read, "past the limit a column's values are left as read");
  }
}

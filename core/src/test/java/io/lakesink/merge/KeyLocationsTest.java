package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.WrittenFile;
import io.lakesink.event.ColumnType;
import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Where a kept table's keys are, moved on commit by commit: each written row at its file and
 * position, replaced and deleted keys gone from where they were, and a file no key is left in
 * forgotten. (Against real tables, with crashes and optimizes: {@code CurrentStateTableTest},
 * {@code CurrentStateTableModelTest}.)
 */
class KeyLocationsTest {
  /** Rows of the test: the key, then its rank's time, partition and offset. */
  static final KeyColumns ID = new KeyColumns(List.of("id"), new int[] {0}, new ColumnType[] {ColumnType.BIGINT});
  static final Function<Object[], ChangeOrder> RANK = row -> ChangeOrder.ofValues(row[1], row[2], row[3]);

  static Object[] row(long id, long ts, long offset) {
    return new Object[] {id, ts, 0, offset};
  }

  /** The key's stored row is at this position of this file, ranked so. */
  static void assertStored(String path, long position, ChangeOrder rank, KeyLocations.Stored at) {
    assertEquals(path, at.path());
    assertEquals(position, at.position());
    assertEquals(rank, at.rank());
  }

  static RowKey key(long id) {
    return ID.keyOf(new Object[] {id});
  }

  @Test
  void eachCommitMovesTheKeysItWroteAndForgetsTheOnesItDeleted() {
    KeyLocations at = KeyLocations.empty(ID, -1);
    assertTrue(at.describes(-1, ID));
    assertTrue(at.committed(List.of(), ID, List.of(row(1, 10, 0), row(2, 10, 1), row(3, 10, 2)), Map.of(), RANK,
        List.of(new WrittenFile("a.parquet", 2), new WrittenFile("b.parquet", 1)), 0));
    assertTrue(at.describes(0, ID));
    assertFalse(at.describes(1, ID));
    assertStored("a.parquet", 0, new ChangeOrder(10L, 0, 0L), at.find(key(1)));
    assertStored("a.parquet", 1, new ChangeOrder(10L, 0, 1L), at.find(key(2)));
    assertStored("b.parquet", 0, new ChangeOrder(10L, 0, 2L), at.find(key(3)));
    assertNull(at.find(key(4)));
    assertEquals(2, at.files());

    // Key 3 replaced: b.parquet holds no key any more and is forgotten; key 1 deleted.
    assertTrue(at.committed(List.of(key(1)), ID, List.of(row(3, 20, 3), row(4, 20, 4)), Map.of(), RANK,
        List.of(new WrittenFile("c.parquet", 2)), 1));
    assertNull(at.find(key(1)));
    assertStored("c.parquet", 0, new ChangeOrder(20L, 0, 3L), at.find(key(3)));
    assertStored("c.parquet", 1, new ChangeOrder(20L, 0, 4L), at.find(key(4)));
    assertEquals(2, at.files(), "a.parquet (key 2) and c.parquet");
    assertEquals(3, at.size());

    // Many commits, each replacing every key: the files known stay the table's, not one per commit.
    for (int commit = 2; commit < 100; commit++) {
      assertTrue(at.committed(List.of(), ID, List.of(row(2, commit, commit), row(3, commit, commit), row(4, commit, commit)),
          Map.of(), RANK, List.of(new WrittenFile("f" + commit + ".parquet", 3)), commit));
    }
    assertEquals(1, at.files());
    assertStored("f99.parquet", 2, new ChangeOrder(99L, 0, 99L), at.find(key(4)));
  }

  @Test
  void rowsItCannotPlaceLeaveItDescribingNothing() {
    KeyLocations at = KeyLocations.empty(ID, 0);
    assertFalse(at.committed(List.of(), ID, List.<Object[]>of(row(1, 10, 0)), Map.of(), RANK, List.of(new WrittenFile("a.parquet", -1)), 1),
        "a file whose statistics do not give its rows");
    KeyLocations other = KeyLocations.empty(ID, 0);
    assertFalse(other.committed(List.of(), ID, List.of(row(1, 10, 0), row(2, 10, 1)), Map.of(), RANK,
        List.of(new WrittenFile("a.parquet", 1)), 1), "files holding fewer rows than written");
  }

  @Test
  void aStringKeyWithAnUnpairedSurrogateIsNotLocated() {
    KeyColumns name = new KeyColumns(List.of("name"), new int[] {0}, new ColumnType[] {ColumnType.STRING});
    KeyLocations at = KeyLocations.empty(name, 0);
    assertNull(at.find(name.keyOf(new Object[] {"plain"})));
    assertNull(at.find(name.keyOf(new Object[] {"emoji \uD83D\uDE00"})));
    assertSame(KeyLocations.UNKNOWN, at.find(name.keyOf(new Object[] {"half \uD83D"})), "no stored string reads back as it");
  }
}

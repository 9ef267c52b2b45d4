package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.lakesink.merge.KeyColumns.RowKey;
import io.lakesink.view.ChangeOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeletedKeysTest {
  static RowKey key(long id) {
    return new RowKey(List.of("id"), List.of(id));
  }

  @Test
  void theMostRecentDeletesAreKeptUpToTheCapacity() {
    DeletedKeys d = new DeletedKeys(2);
    d.deleted(key(1), new ChangeOrder(1L, 0, 1L));
    d.deleted(key(2), new ChangeOrder(2L, 0, 2L));
    d.deleted(key(1), new ChangeOrder(3L, 0, 3L)); // deleted again: now the most recent
    d.deleted(key(3), new ChangeOrder(4L, 0, 4L));
    assertNull(d.deletedAt(key(2)), "the oldest delete is forgotten");
    assertEquals(new ChangeOrder(3L, 0, 3L), d.deletedAt(key(1)));
    assertEquals(new ChangeOrder(4L, 0, 4L), d.deletedAt(key(3)));
    d.reinserted(key(3));
    assertNull(d.deletedAt(key(3)));
  }
}

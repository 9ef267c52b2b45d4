package io.lakesink.delivery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.error.SourcePosition;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import io.lakesink.event.RowSchema;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowLayoutTest {
  static final RowSchema A = new RowSchema(List.of(new Column("id", ColumnType.BIGINT), new Column("name", ColumnType.STRING)), true);
  static final RowSchema B = new RowSchema(List.of(new Column("n", ColumnType.INT), new Column("id", ColumnType.BIGINT)), true);

  static ChangeEvent event(long offset, RowSchema schema, Object... values) {
    return new ChangeEvent(new SourcePosition("t", 0, offset), Operation.UPDATE, 1L, schema, values, List.of("id"), 10);
  }

  /**
   * Rows of two shapes, alternating and in runs, each placed by its own shape (the layout keeps
   * the last shape's placement) and fitted into the table's types: an INT into a BIGINT column.
   */
  @Test
  void rowsOfShapesInTurnArePlacedEachByItsOwn() {
    List<Column> existing = List.of(new Column("id", ColumnType.BIGINT), new Column("n", ColumnType.BIGINT));
    List<ChangeEvent> events = new ArrayList<>(List.of(
        event(1, A, 1L, "a"), event(2, B, 7, 2L), event(3, A, 3L, "c"), event(4, A, 4L, "d"), event(5, B, 9, 5L)));
    RowLayout layout = new RowLayout("t", existing, events, List.of(new Column("__offset", ColumnType.BIGINT)));

    assertEquals(List.of("id", "n", "name", "__offset"), layout.columns().stream().map(Column::name).toList());
    List<Object[]> rows = events.stream().map(layout::row).toList();
    assertArrayEquals(new Object[] {1L, null, "a", null}, rows.get(0));
    assertArrayEquals(new Object[] {2L, 7L, null, null}, rows.get(1));
    assertArrayEquals(new Object[] {3L, null, "c", null}, rows.get(2));
    assertArrayEquals(new Object[] {4L, null, "d", null}, rows.get(3));
    assertArrayEquals(new Object[] {5L, 9L, null, null}, rows.get(4));
  }
}

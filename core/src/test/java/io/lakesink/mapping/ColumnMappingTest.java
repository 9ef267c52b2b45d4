package io.lakesink.mapping;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.TableFailureException;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import io.lakesink.event.Operation;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnMappingTest {
  final ColumnMapping mapping = new ColumnMapping("t", List.of(
      new ColumnRule("id", "order_id", ColumnRule.castType("int"), true),
      new ColumnRule("placed", "placed_at", ColumnRule.castType("datetime"), false),
      new ColumnRule("paid", "paid", ColumnRule.castType("bool"), false),
      new ColumnRule("day", "day", ColumnRule.castType("date"), false),
      new ColumnRule("price", "price", ColumnRule.castType("float"), false),
      new ColumnRule("note", "note", null, false),
      new ColumnRule("misc", "misc", ColumnRule.castType("varchar"), false)));

  @Test
  void selectsRenamesAndCasts() {
    ChangeEvent e = mapping.apply(event("t", 0, 1, Operation.UPDATE, 5L, row(
        "id", "42", "placed", "2026-03-01 10:00:00", "paid", "1", "day", "2026-03-01T23:00:00Z",
        "price", "9.5", "note", "hi", "misc", 7L, "dropped", "x")));
    assertEquals(List.of(
        new Column("order_id", ColumnType.BIGINT), new Column("placed_at", ColumnType.TIMESTAMP), new Column("paid", ColumnType.BOOLEAN),
        new Column("day", ColumnType.DATE), new Column("price", ColumnType.DOUBLE), new Column("note", ColumnType.STRING),
        new Column("misc", ColumnType.STRING)), e.schema().columns());
    assertArrayEquals(new Object[] {42L, Instant.parse("2026-03-01T10:00:00Z"), true, LocalDate.of(2026, 3, 1), 9.5, "hi", "7"}, e.values());
    assertEquals(List.of("order_id"), mapping.primaryKey());
  }

  @Test
  void aMissingUncastColumnIsLeftOutAndAShapeIsComputedOnce() {
    ChangeEvent a = mapping.apply(event("t", 0, 1, Operation.CREATE, 5L, row("id", 1L)));
    ChangeEvent b = mapping.apply(event("t", 0, 2, Operation.CREATE, 5L, row("id", 2L)));
    assertTrue(a.schema().columns().stream().noneMatch(c -> c.name().equals("note")));
    assertEquals(1L, a.value("order_id"));
    assertEquals(null, a.value("placed_at"));
    assertEquals(a.schema().columns(), b.schema().columns());
  }

  @Test
  void aValueThatDoesNotCastFailsTheTableNamingColumnAndOffset() {
    TableFailureException e = assertThrows(TableFailureException.class,
        () -> mapping.apply(event("t", 3, 9, Operation.CREATE, 5L, row("id", "forty-two"))));
    assertTrue(e.getMessage().contains("casts id to bigint") && e.getMessage().contains("partition 3, offset 9"), e.getMessage());
  }

  @Test
  void noRulesPassesEventsThrough() {
    ChangeEvent e = event("t", 0, 1, Operation.CREATE, 5L, row("id", 1L));
    assertSame(e, new ColumnMapping("t", List.of()).apply(e));
  }
}

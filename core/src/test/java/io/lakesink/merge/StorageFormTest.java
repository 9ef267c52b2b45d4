package io.lakesink.merge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.event.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class StorageFormTest {
  @Test
  void timestampsKeepMicrosecondsAsDeltaStoresThem() {
    assertEquals(Instant.parse("2026-11-29T10:00:00.123456Z"),
        StorageForm.of(Instant.parse("2026-11-29T10:00:00.123456789Z"), ColumnType.TIMESTAMP));
    // Before 1970 too: Delta stores floor(micros), which is what dropping the nanos gives.
    assertEquals(Instant.parse("1969-12-31T23:59:59.999999Z"),
        StorageForm.of(Instant.parse("1969-12-31T23:59:59.999999999Z"), ColumnType.TIMESTAMP));
  }

  @Test
  void decimalsTakeTheColumnsScaleWhenThatLosesNothing() {
    assertEquals(new BigDecimal("1.50"), StorageForm.of(new BigDecimal("1.5"), ColumnType.decimal(10, 2)));
    assertEquals(new BigDecimal("1.505"), StorageForm.of(new BigDecimal("1.505"), ColumnType.decimal(10, 2)), "not rounded");
  }

  @Test
  void otherValuesAreStoredAsTheyAre() {
    assertEquals("10:15:30.123456789", StorageForm.of("10:15:30.123456789", ColumnType.STRING));
    assertEquals(LocalDate.of(2026, 11, 29), StorageForm.of(LocalDate.of(2026, 11, 29), ColumnType.DATE));
    assertEquals(7L, StorageForm.of(7L, ColumnType.BIGINT));
  }
}

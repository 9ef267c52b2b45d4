package io.lakesink.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.quarantine.TableQuarantine;
import io.lakesink.storage.LocalStorage;
import io.lakesink.testing.ShiftableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableHealthTest {
  @TempDir Path dir;

  @Test
  void aDegradedTableShowsItsNewestReasonSinceItFirstBecameDegraded() {
    ShiftableClock clock = new ShiftableClock();
    Subscription s = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    TableHealth health = new TableHealth("t_APPEND",
        new TableQuarantine("t_APPEND", s, new QuarantineStore(new LocalStorage(dir, "lakesink")), clock), DeliveryMetrics.NONE, clock);
    health.degrade("view not built (attempt 1 failed; next attempt at 10:01)");
    Instant since = ((DeliveryState.Degraded) health.state()).since();
    clock.advance(Duration.ofMinutes(1));
    health.degrade("view not built (attempt 2 failed; next attempt at 10:06)");
    assertEquals("view not built (attempt 2 failed; next attempt at 10:06)", health.reason(), "the next attempt must show");
    assertEquals(since, ((DeliveryState.Degraded) health.state()).since());
  }
}

package io.lakesink.quarantine;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.TableFailureException;
import io.lakesink.event.Operation;
import io.lakesink.testing.FlakyStorage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Storage fails (with a runtime error of its client) just as a table is quarantined. Fails on
 * the previous code, where the error escaped to the worker's poll loop and ended the worker.
 */
class UnsavedQuarantineTest {
  @TempDir Path dir;

  @Test
  void aQuarantineWhoseRecordCannotBeSavedStillStopsTheTableAndIsSavedLater() {
    FlakyStorage storage = new FlakyStorage(dir);
    Subscription sub = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
    ChangelogDelivery d = new ChangelogDelivery(sub, new DeltaTable(KernelEngine.create(storage), storage.tableLocation("t_APPEND")),
        DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)));
    d.accept(event("t", 0, 0, Operation.CREATE, 1L, row("id", 0L)));
    storage.failQuarantineWrites(true);

    d.fail(new TableFailureException("a record this table cannot take", null, null));
    assertFalse(d.state().delivering(), "the table stops although its record could not be saved");
    assertTrue(new QuarantineStore(storage).list().isEmpty());
    assertFalse(d.releaseIfAllowed(), "an unsaved record is not mistaken for a release");

    storage.failQuarantineWrites(false);
    assertFalse(d.releaseIfAllowed(), "the record is saved on the next check");
    assertTrue(new QuarantineStore(storage).load("t_APPEND").isPresent());
    assertFalse(d.state().delivering());
  }
}

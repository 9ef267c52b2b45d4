package io.lakesink.delta;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A healthy commit logs no warning from the steps Kernel runs after it. */
class PostCommitHooksTest {
  @TempDir Path dir;

  /**
   * Kernel 4.4's full checksum cannot serialize the file list of a table whose files mix adds with
   * and without deletion vectors; metadata commits (a table property) once ran it, and every one
   * logged {@code Post-commit CHECKSUM_FULL ... Could not serialize row object to JSON}.
   */
  @Test
  void aPropertyCommitOnATableWithDeletionVectorsLogsNoWarning() {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    MergeDelivery d = new MergeDelivery(s, table, null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)),
        MergeSettings.DEFAULT);
    for (long id = 0; id < 3; id++) {
      d.accept(event("t", 0, id, Operation.CREATE, 1000L + id, row("id", id, "name", "a")));
    }
    d.flush();
    d.accept(event("t", 0, 3, Operation.UPDATE, 2000L, row("id", 1L, "name", "b")));
    d.flush(); // a deletion vector on the first file, and a second file without one
    DeltaTable again = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    assertTrue(again.files().stream().anyMatch(TableFile::hasDeletionVector));
    assertTrue(again.files().stream().anyMatch(f -> !f.hasDeletionVector()));

    String logged = stderrOf(() -> {
      for (int i = 0; i < 3; i++) { // the 10th version is a checkpoint too
        int n = i;
        again.commitProperties(current -> Map.of("lakesink.test.round", String.valueOf(n)));
      }
    });

    assertFalse(logged.contains("Post-commit"), logged);
    assertEquals("2", new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items")).properties().get("lakesink.test.round"));
  }

  /** What slf4j-simple (the tests' logger, writing to the current {@code System.err}) printed meanwhile. */
  private static String stderrOf(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}

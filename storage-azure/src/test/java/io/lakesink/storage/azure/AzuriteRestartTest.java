package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.azure.testing.Azurite;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The harness can take Azurite away and bring it back on the same port with the same data (for
 * fault tests), and storage calls during the outage fail as retryable, not as configuration.
 */
class AzuriteRestartTest {

  @Test
  void stopAndRestartKeepPortAndData() {
    try (Azurite azurite = Azurite.start()) {
      AzureStorage storage = TestStorages.onAzurite(azurite, azurite.createContainer());
      Engine engine = DefaultEngine.create(storage.fileIO());
      String path = storage.tableLocation("outage");
      var snapshot = DeltaTables.create(engine, path).getPostCommitSnapshot().orElseThrow();
      DeltaTables.append(engine, snapshot, "w", 1, 1L);
      int port = azurite.port();

      azurite.stop();
      assertFalse(azurite.isRunning());
      RuntimeException during =
          assertThrows(RuntimeException.class, () -> DeltaTables.load(engine, path));
      assertTrue(causes(during, RetryableException.class), TestStorages.allMessages(during));

      azurite.restart();
      assertEquals(port, azurite.port());
      var reloaded = DeltaTables.load(engine, path);
      assertEquals(1, reloaded.getVersion());
      DeltaTables.append(engine, reloaded, "w", 2, 2L);
      assertEquals(List.of(1L, 2L), DeltaTables.readIds(engine, path).stream().sorted().toList());
    }
  }

  private static boolean causes(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) return true;
    }
    return false;
  }
}

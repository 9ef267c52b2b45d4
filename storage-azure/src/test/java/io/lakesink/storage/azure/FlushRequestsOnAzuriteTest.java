package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Operation;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import io.lakesink.storage.azure.testing.RecordingProxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a changelog flush asks of Blob Storage, counted at a proxy in front of Azurite: the same
 * five requests at every version. Before lakesink kept each commit's checksum in step (a table
 * created without one never had one in memory), every commit read every commit file since the
 * last checkpoint twice, and listed the log from there: 18 requests at version 1, 22 at version
 * 4; and four more read back what the flush had just written ({@link WrittenBlobs}).
 */
@ExtendWith(AzuriteExtension.class)
class FlushRequestsOnAzuriteTest {
  @Test
  void aChangelogFlushCostsTheSameRequestsAtEveryVersion(Azurite azurite) {
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      AzureStorage storage = TestStorages.viaProxy(azurite, azurite.createContainer(), proxy);
      DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
      ChangelogDelivery d = new ChangelogDelivery(
          new Subscription("t", "items", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true),
          table, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)));
      List<List<String>> flushes = new ArrayList<>();
      long offset = 0;
      for (int flush = 0; flush < 9; flush++) { // versions 1 to 9: no checkpoint among them
        for (int i = 0; i < 20; i++, offset++) {
          d.accept(MergeDeletionVectorsOnAzuriteTest.change(offset, Operation.UPDATE, offset % 5, "v" + offset));
        }
        proxy.clear();
        d.flush();
        assertTrue(d.state().delivering(), d.state().toString());
        flushes.add(proxy.requests().stream().map(r -> r.method() + " " + r.path().substring(r.path().lastIndexOf('/') + 1)).toList());
      }

      // The first flush creates the table; each later one lists the log from the latest version,
      // reads that commit (the offsets it stores), puts the data file, the commit and its
      // checksum. The Delta library's read-back of the data file (status and footer, for its
      // statistics) and of the commit's status (by the library, then by lakesink) are answered
      // from what the writes returned.
      List<String> second = flushes.get(1);
      assertTrue(second.size() <= 5, "a flush on version 1 made " + second.size() + " requests: " + second);
      for (int flush = 1; flush < flushes.size(); flush++) {
        List<String> requests = flushes.get(flush);
        assertEquals(second.size(), requests.size(), "flush " + flush + ": " + requests + " against " + second);
        assertEquals(1, requests.stream().filter(r -> r.matches("GET .*%2F\\d{20}\\.json")).count(), "flush " + flush + ": " + requests);
        assertTrue(requests.stream().noneMatch(r -> r.startsWith("HEAD") || r.matches("GET .*\\.parquet")),
            "flush " + flush + " read back what it wrote: " + requests);
      }
    }
  }
}

package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.engine.Engine;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import io.lakesink.storage.azure.testing.RecordingProxy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A put-if-absent whose first attempt lands but whose answer is lost (here: the proxy forwards the
 * PUT, then answers 500), so the SDK retries and the retry finds the blob. Reading back tells our
 * own write from a lost race.
 */
@ExtendWith(AzuriteExtension.class)
class AmbiguousCommitTest {
  private Azurite azurite;
  private RecordingProxy proxy;
  private AzureStorage storage;

  @BeforeEach
  void setUp(Azurite shared) {
    azurite = shared;
    proxy = RecordingProxy.start(azurite.baseUrl());
    storage = TestStorages.viaProxy(azurite, azurite.createContainer(), proxy);
  }

  @AfterEach
  void tearDown() {
    proxy.close();
  }

  private static Predicate<RecordingProxy.Request> put(String nameSuffix) {
    return r -> r.method().equals("PUT") && r.path().endsWith(nameSuffix.replace("/", "%2F"))
        || r.method().equals("PUT") && r.path().endsWith(nameSuffix);
  }

  @Test
  void aCommitWhoseFirstAttemptLandedSucceeds() {
    Engine engine = DefaultEngine.create(storage.fileIO());
    String path = storage.tableLocation("ambiguous");
    var snapshot = DeltaTables.create(engine, path).getPostCommitSnapshot().orElseThrow();

    proxy.failAfterForwarding(put("_delta_log/00000000000000000001.json"), 500);
    assertEquals(1, DeltaTables.append(engine, snapshot, "w", 1, 42L).getVersion());

    long puts = proxy.requests().stream().filter(put("_delta_log/00000000000000000001.json")).count();
    assertEquals(2, puts, "the SDK retried the commit PUT once");
    assertEquals(1, DeltaTables.load(engine, path).getVersion());
    assertEquals(List.of(42L), DeltaTables.readIds(engine, path));
  }

  @Test
  void aRetriedPutThatFindsSomeoneElsesFileStillLoses() throws IOException {
    FileIO io = storage.fileIO();
    String path = storage.tableLocation("lost") + "/_delta_log/00000000000000000003.json";
    io.newOutputFile(path).writeAtomically(AzureFileIOContractTest.lines("{\"theirs\":1}"), false);

    // Our first attempt fails (503, not forwarded), the retry finds the other writer's file.
    proxy.respondWithError(put("00000000000000000003.json"), 503, "ServerBusy");
    assertThrows(
        FileAlreadyExistsException.class,
        () -> io.newOutputFile(path).writeAtomically(AzureFileIOContractTest.lines("{\"ours\":1}"), false));
    try (InputStream in = io.newInputFile(path, -1).newStream()) {
      assertEquals("{\"theirs\":1}\n", new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void aMultiBlockCommitWhoseFirstAttemptLandedSucceeds() throws IOException {
    FileIO io = storage.fileIO();
    String path = storage.tableLocation("blocks") + "/_delta_log/00000000000000000009.checkpoint.parquet";
    byte[] content = AzureFileIOContractTest.randomBytes(BlockUploadStream.BLOCK_SIZE + 10);
    proxy.failAfterForwarding(r -> r.method().equals("PUT") && "comp=blocklist".equals(r.query()), 500);
    try (PositionOutputStream out = io.newOutputFile(path).create(true)) {
      out.write(content);
    }
    assertEquals(content.length, io.getFileStatus(path).getSize());
    assertEquals(
        2, proxy.requests().stream().filter(r -> "comp=blocklist".equals(r.query())).count());
  }
}

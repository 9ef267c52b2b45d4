package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.AzuriteExtension;
import io.lakesink.storage.azure.testing.RecordingProxy;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Kernel's FileIO contract, against a real Azurite. */
@ExtendWith(AzuriteExtension.class)
class AzureFileIOContractTest {
  private static Azurite azurite;
  private static AzureStorage storage;
  private static FileIO io;
  private static String root;

  @BeforeAll
  static void setUp(Azurite shared) {
    azurite = shared;
    storage = TestStorages.onAzurite(azurite, azurite.createContainer());
    io = storage.fileIO();
    root = storage.tableLocation("contract");
  }

  @Test
  void writesReadsRangesAndDeletes() throws IOException {
    String path = root + "/data/big.bin";
    byte[] content = randomBytes(17 * 1024 * 1024 + 123); // three staged blocks
    try (PositionOutputStream out = io.newOutputFile(path).create(false)) {
      out.write(content, 0, 1000);
      out.write(content[1000]);
      out.write(content, 1001, content.length - 1001);
      assertEquals(content.length, out.getPos());
    }
    FileStatus status = io.getFileStatus(path);
    assertEquals(path, status.getPath());
    assertEquals(content.length, status.getSize());

    try (SeekableInputStream in = io.newInputFile(path, content.length).newStream()) {
      assertRange(in, content, content.length - 8, 8); // a Parquet tail
      assertRange(in, content, 0, 100);
      assertRange(in, content, 5_000_000, 3 * 1024 * 1024); // large read straight into the array
      assertRange(in, content, 123, 1);
      in.seek(content.length - 5);
      assertThrows(EOFException.class, () -> in.readFully(new byte[10], 0, 10));
      in.seek(content.length);
      assertEquals(-1, in.read());
    }
    // Size unknown (Kernel passes -1 for readFiles): learnt from the first range answer.
    // Kernel's Parquet reader then takes the configuration parsed once (ParsedOnceInputFileTest).
    assertInstanceOf(io.delta.kernel.defaults.engine.hadoopio.HadoopInputFile.class, io.newInputFile(path, content.length));
    var unknownSize = io.newInputFile(path, -1);
    try (SeekableInputStream in = unknownSize.newStream()) {
      assertArrayEquals(content, in.readAllBytes());
    }
    assertEquals(content.length, unknownSize.length());

    assertTrue(io.delete(path));
    assertThrows(FileNotFoundException.class, () -> io.getFileStatus(path));
    assertFalse(io.delete(path));
  }

  @Test
  void emptyAndSmallFiles() throws IOException {
    String empty = root + "/small/empty.json";
    io.newOutputFile(empty).create(false).close();
    assertEquals(0, io.getFileStatus(empty).getSize());
    try (SeekableInputStream in = io.newInputFile(empty, 0).newStream()) {
      assertEquals(-1, in.read());
    }
    try (SeekableInputStream in = io.newInputFile(empty, -1).newStream()) {
      assertEquals(-1, in.read());
    }
  }

  @Test
  void writeAtomicallyIsPutIfAbsent() throws IOException {
    String path = root + "/_delta_log/00000000000000000000.json";
    io.newOutputFile(path).writeAtomically(lines("{\"a\":1}", "{\"b\":2}"), false);
    assertEquals("{\"a\":1}\n{\"b\":2}\n", read(path));

    assertThrows(
        FileAlreadyExistsException.class,
        () -> io.newOutputFile(path).writeAtomically(lines("{\"other\":1}"), false));
    assertEquals("{\"a\":1}\n{\"b\":2}\n", read(path), "the loser must not change the file");

    io.newOutputFile(path).writeAtomically(lines("{\"replaced\":1}"), true);
    assertEquals("{\"replaced\":1}\n", read(path));
  }

  @Test
  void atomicCreateDoesNotReplaceAnExistingFile() throws IOException {
    String path = root + "/_delta_log/00000000000000000010.checkpoint.parquet";
    try (PositionOutputStream out = io.newOutputFile(path).create(true)) {
      out.write("first".getBytes(StandardCharsets.UTF_8));
    }
    PositionOutputStream second = io.newOutputFile(path).create(true);
    second.write("second".getBytes(StandardCharsets.UTF_8));
    assertThrows(FileAlreadyExistsException.class, second::close);
    assertEquals("first", read(path));

    try (PositionOutputStream out = io.newOutputFile(path).create(false)) {
      out.write("overwritten".getBytes(StandardCharsets.UTF_8));
    }
    assertEquals("overwritten", read(path));
  }

  @Test
  void listFromReturnsSameDirectoryNamesFromTheArgumentInOrder() throws IOException {
    String log = root + "/listing/_delta_log";
    List<String> names = new ArrayList<>();
    for (int v = 0; v <= 12; v++) {
      names.add(String.format("%020d.json", v));
    }
    names.add(String.format("%020d.checkpoint.parquet", 10));
    names.add("_last_checkpoint");
    for (String name : names) {
      io.newOutputFile(log + "/" + name).writeAtomically(lines(name), false);
    }
    // Neither a subdirectory nor a sibling directory sharing the name prefix may show up.
    io.newOutputFile(log + "/_sidecars/a.parquet").writeAtomically(lines("x"), false);
    io.newOutputFile(root + "/listing/_delta_log2/00000000000000000011.json").writeAtomically(lines("x"), false);

    List<String> listed = list(log + "/" + String.format("%020d.", 5));
    List<String> expected =
        names.stream().filter(n -> n.compareTo(String.format("%020d.", 5)) >= 0).sorted().map(n -> log + "/" + n).toList();
    assertEquals(expected, listed);

    // An existing file name is included (>=), and the listing starts there.
    assertEquals(log + "/" + String.format("%020d.json", 12), list(log + "/" + String.format("%020d.json", 12)).get(0));
    FileStatus first;
    try (CloseableIterator<FileStatus> it = io.listFrom(log + "/" + String.format("%020d.json", 3))) {
      first = it.next();
    }
    assertEquals(String.format("%020d.json", 3).length() + 1, first.getSize());
    assertTrue(first.getModificationTime() > 0);

    assertEquals(List.of(), list(root + "/no-such-table/_delta_log/" + String.format("%020d.", 0)));
  }

  @Test
  void listFromStartsServerSideAndTheFooterIsOneRequest() throws IOException {
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      AzureStorage viaProxy = TestStorages.viaProxy(azurite, storage.container(), proxy);
      FileIO proxied = viaProxy.fileIO();
      String dir = viaProxy.tableLocation("proxied") + "/_delta_log";
      proxied.newOutputFile(dir + "/00000000000000000000.json").writeAtomically(lines("a"), false);
      byte[] parquetLike = randomBytes(3 * 1024 * 1024);
      try (PositionOutputStream out = proxied.newOutputFile(viaProxy.tableLocation("proxied") + "/part-0.parquet").create(false)) {
        out.write(parquetLike);
      }
      proxy.clear();

      try (CloseableIterator<FileStatus> it = proxied.listFrom(dir + "/00000000000000000000.")) {
        assertEquals(dir + "/00000000000000000000.json", it.next().getPath());
      }
      assertTrue(
          proxy.requests().stream().anyMatch(r -> r.query() != null && r.query().contains("startFrom=")),
          "listing should ask the service to start at the argument: " + proxy.requests());

      proxy.clear();
      try (SeekableInputStream in =
          proxied.newInputFile(viaProxy.tableLocation("proxied") + "/part-0.parquet", parquetLike.length).newStream()) {
        assertRange(in, parquetLike, parquetLike.length - 8, 8); // footer length + magic
        assertRange(in, parquetLike, parquetLike.length - 20_000, 19_992); // the footer
      }
      assertEquals(1, proxy.requests().size(), "footer reads: " + proxy.requests());
    }
  }

  /**
   * The Delta library reads back each data file it wrote (status, then footer) and each commit's
   * status: answered from the write ({@link WrittenBlobs}), with what the service itself reports,
   * and without a request; the rest of the file is read pinned to the version written.
   */
  @Test
  void whatThisProcessWroteIsReadBackWithoutARequest() throws IOException {
    try (RecordingProxy proxy = RecordingProxy.start(azurite.baseUrl())) {
      AzureStorage viaProxy = TestStorages.viaProxy(azurite, storage.container(), proxy);
      FileIO proxied = viaProxy.fileIO();
      String table = viaProxy.tableLocation("readback");
      byte[] small = WrittenBlobsTest.parquetLike(100_000, 3_000);
      byte[] large = WrittenBlobsTest.parquetLike(9 * 1024 * 1024, 20_000); // two staged blocks
      for (byte[] content : List.of(small, large)) {
        String path = table + "/part-" + content.length + ".parquet";
        try (PositionOutputStream out = proxied.newOutputFile(path).create(false)) {
          out.write(content);
        }
        String commit = table + "/_delta_log/" + String.format("%020d.json", content.length);
        proxied.newOutputFile(commit).writeAtomically(lines("{\"commitInfo\":{}}"), false);
        proxy.clear();

        FileStatus status = proxied.getFileStatus(path);
        FileStatus commitStatus = proxied.getFileStatus(commit);
        try (SeekableInputStream in = proxied.newInputFile(path, status.getSize()).newStream()) {
          assertRange(in, content, content.length - 8, 8);
          assertRange(in, content, content.length - 8 - 20, 20);
        }
        assertEquals(List.of(), proxy.requests(), "read back of " + path);
        // What the service reports, as a process that did not write them sees it.
        assertEquals(io.getFileStatus(path).getSize(), status.getSize());
        assertEquals(io.getFileStatus(path).getModificationTime(), status.getModificationTime());
        assertEquals(io.getFileStatus(commit).getModificationTime(), commitStatus.getModificationTime());
        assertEquals(io.getFileStatus(commit).getSize(), commitStatus.getSize());
        try (SeekableInputStream in = proxied.newInputFile(path, status.getSize()).newStream()) {
          assertRange(in, content, 0, 1000);
          assertRange(in, content, content.length - 40_000, 40_000);
        }
      }

      // Another writer replaces _last_checkpoint (written, not kept); a deleted file is gone.
      String last = table + "/_delta_log/_last_checkpoint";
      proxied.newOutputFile(last).writeAtomically(lines("{\"version\":10}"), true);
      io.newOutputFile(last).writeAtomically(lines("{\"version\":20,\"size\":3}"), true);
      assertEquals(io.getFileStatus(last).getSize(), proxied.getFileStatus(last).getSize());
      // A quarantine record an operator's release deletes: gone at once for the worker that wrote it.
      String record = table.substring(0, table.lastIndexOf('/')) + "/_lakesink/quarantine/readback.json";
      proxied.newOutputFile(record).writeAtomically(lines("{\"table\":\"readback\"}"), true);
      assertTrue(io.delete(record));
      assertThrows(FileNotFoundException.class, () -> proxied.getFileStatus(record));
      String gone = table + "/part-" + small.length + ".parquet";
      assertTrue(proxied.delete(gone));
      assertThrows(FileNotFoundException.class, () -> proxied.getFileStatus(gone));
    }
  }

  @Test
  void namesWithSpacesAndPercentSignsRoundTrip() throws IOException {
    // Delta escapes partition values into directory names with literal '%'.
    String dir = root + "/odd/ts=2024-01-01 00%3A00%3A00";
    String path = dir + "/part 0+1.parquet";
    io.newOutputFile(path).writeAtomically(lines("x"), false);
    assertEquals(path, io.getFileStatus(path).getPath());
    assertEquals(List.of(path), list(dir + "/part"));
    assertEquals("x\n", read(path));
  }

  @Test
  void resolvesPathsToTheAbfssForm() throws IOException {
    String table = storage.tableLocation("t1");
    assertEquals(
        "abfss://" + storage.container() + "@devstoreaccount1.dfs.core.windows.net/lakesink/t1", table);
    assertEquals(table, io.resolvePath(table + "/"));
    assertEquals(table + "/a/b", io.resolvePath(table + "//a/b"));
    assertEquals(
        table + "/x y",
        io.resolvePath(azurite.blobEndpoint() + "/" + storage.container() + "/lakesink/t1/x%20y"));
    assertEquals(
        table + "/f",
        io.resolvePath("https://devstoreaccount1.blob.core.windows.net/" + storage.container() + "/lakesink/t1/f"));
    assertThrows(
        IllegalArgumentException.class,
        () -> io.resolvePath("abfss://other@devstoreaccount1.dfs.core.windows.net/lakesink/t1"));
    assertThrows(
        IllegalArgumentException.class,
        () -> io.resolvePath("abfss://" + storage.container() + "@someoneelse.dfs.core.windows.net/x"));
    assertTrue(io.mkdirs(table + "/_delta_log"));
    assertEquals(java.util.Optional.empty(), io.getConf("parquet.compression"));
  }

  @Test
  void copiesAtomically() throws IOException {
    String src = root + "/copy/_staged_commits/00000000000000000001.uuid.json";
    String dest = root + "/copy/00000000000000000001.json";
    io.newOutputFile(src).writeAtomically(lines("{\"commitInfo\":{}}"), false);
    io.copyFileAtomically(src, dest, false);
    assertEquals("{\"commitInfo\":{}}\n", read(dest));
    assertThrows(FileAlreadyExistsException.class, () -> io.copyFileAtomically(src, dest, false));
    io.copyFileAtomically(src, dest, true);
    assertThrows(FileNotFoundException.class, () -> io.copyFileAtomically(root + "/copy/missing", dest, true));
  }

  @Test
  void missingFileIsFileNotFound() {
    assertThrows(FileNotFoundException.class, () -> io.getFileStatus(root + "/nope.json"));
    assertThrows(
        FileNotFoundException.class,
        () -> {
          try (SeekableInputStream in = io.newInputFile(root + "/nope.json", 10).newStream()) {
            in.read();
          }
        });
  }

  static void assertRange(SeekableInputStream in, byte[] content, int offset, int length) throws IOException {
    in.seek(offset);
    byte[] got = new byte[length];
    in.readFully(got, 0, length);
    assertArrayEquals(Arrays.copyOfRange(content, offset, offset + length), got, "range at " + offset);
    assertEquals(offset + length, in.getPos());
  }

  private static List<String> list(String from) throws IOException {
    List<String> paths = new ArrayList<>();
    try (CloseableIterator<FileStatus> it = io.listFrom(from)) {
      it.forEachRemaining(s -> paths.add(s.getPath()));
    }
    return paths;
  }

  private static String read(String path) throws IOException {
    try (SeekableInputStream in = io.newInputFile(path, -1).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static CloseableIterator<String> lines(String... lines) {
    return Utils.toCloseableIterator(Arrays.asList(lines).iterator());
  }

  static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    new Random(n).nextBytes(bytes);
    return bytes;
  }
}

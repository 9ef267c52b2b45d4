package io.lakesink.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Kernel's FileIO contract for {@link LocalFileIO}, on the real file system. */
class LocalFileIOContractTest {
  @TempDir Path dir;
  private final FileIO io = new LocalFileIO();

  private String root() {
    return "file:" + dir;
  }

  private static FileIO withMode(FilePublisher.Mode mode) {
    return new LocalFileIO(new FilePublisher(mode));
  }

  @Test
  void writesReadsRangesAndDeletes() throws IOException {
    String path = root() + "/data/part-0.parquet"; // the directory does not exist yet
    byte[] content = randomBytes(3 * 1024 * 1024 + 123);
    try (PositionOutputStream out = io.newOutputFile(path).create(false)) {
      out.write(content, 0, 1000);
      out.write(content[1000]);
      out.write(content, 1001, content.length - 1001);
      assertEquals(content.length, out.getPos());
    }
    FileStatus status = io.getFileStatus(path);
    assertEquals(path, status.getPath());
    assertEquals(content.length, status.getSize());
    assertEquals(Files.getLastModifiedTime(dir.resolve("data/part-0.parquet")).toMillis(), status.getModificationTime());

    try (SeekableInputStream in = io.newInputFile(path, content.length).newStream()) {
      assertRange(in, content, content.length - 8, 8); // a Parquet tail
      assertRange(in, content, 0, 100);
      assertRange(in, content, 1_000_000, 2 * 1024 * 1024);
      assertRange(in, content, 123, 1);
      in.seek(10);
      assertEquals(content[10] & 0xff, in.read());
      assertEquals(11, in.getPos());
      in.seek(content.length - 5);
      assertThrows(EOFException.class, () -> in.readFully(new byte[10], 0, 10));
      in.seek(content.length);
      assertEquals(-1, in.read());
      assertEquals(-1, in.read(new byte[4], 0, 4));
    }
    var unknownSize = io.newInputFile(path, -1);
    assertEquals(content.length, unknownSize.length());
    try (SeekableInputStream in = unknownSize.newStream()) {
      assertArrayEquals(content, in.readAllBytes());
    }

    // create(false) replaces an existing file.
    try (PositionOutputStream out = io.newOutputFile(path).create(false)) {
      out.write("short".getBytes(StandardCharsets.UTF_8));
    }
    assertEquals("short", read(path));

    assertTrue(io.delete(path));
    assertThrows(FileNotFoundException.class, () -> io.getFileStatus(path));
    assertFalse(io.delete(path));
    assertThrows(IOException.class, () -> io.delete(root() + "/data"));
  }

  @ParameterizedTest
  @EnumSource(FilePublisher.Mode.class)
  void writeAtomicallyIsPutIfAbsent(FilePublisher.Mode mode) throws IOException {
    FileIO io = withMode(mode);
    String path = root() + "/t/_delta_log/00000000000000000000.json";
    io.newOutputFile(path).writeAtomically(lines("{\"a\":1}", "{\"b\":2}"), false);
    assertEquals("{\"a\":1}\n{\"b\":2}\n", read(path));

    assertThrows(
        FileAlreadyExistsException.class,
        () -> io.newOutputFile(path).writeAtomically(lines("{\"other\":1}"), false));
    assertEquals("{\"a\":1}\n{\"b\":2}\n", read(path), "the loser must not change the file");

    io.newOutputFile(path).writeAtomically(lines("{\"replaced\":1}"), true);
    assertEquals("{\"replaced\":1}\n", read(path));
    assertEquals(List.of("00000000000000000000.json"), namesIn(dir.resolve("t/_delta_log")), "no temporary file may stay");
  }

  @ParameterizedTest
  @EnumSource(FilePublisher.Mode.class)
  void atomicCreateAppearsWholeAndDoesNotReplaceAnExistingFile(FilePublisher.Mode mode) throws IOException {
    FileIO io = withMode(mode);
    String path = root() + "/t/_delta_log/00000000000000000010.checkpoint.parquet";
    try (PositionOutputStream out = io.newOutputFile(path).create(true)) {
      out.write("first".getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThrows(FileNotFoundException.class, () -> io.getFileStatus(path), "visible before close");
      assertEquals(5, out.getPos());
    }
    PositionOutputStream second = io.newOutputFile(path).create(true);
    second.write("second".getBytes(StandardCharsets.UTF_8));
    assertThrows(FileAlreadyExistsException.class, second::close);
    assertEquals("first", read(path));
    assertEquals(List.of("00000000000000000010.checkpoint.parquet"), namesIn(dir.resolve("t/_delta_log")));
  }

  @Test
  void aFailingWriterLeavesNothingBehind() throws IOException {
    String path = root() + "/t/_delta_log/00000000000000000001.json";
    CloseableIterator<String> failing =
        Utils.toCloseableIterator(List.of("{\"a\":1}").iterator())
            .map(
                line -> {
                  throw new IllegalStateException("injected: action serialization failed");
                });
    assertThrows(IllegalStateException.class, () -> io.newOutputFile(path).writeAtomically(failing, false));
    assertEquals(List.of(), namesIn(dir.resolve("t/_delta_log")));
  }

  @Test
  void listFromReturnsSameDirectoryFilesFromTheArgumentInOrder() throws IOException {
    String log = root() + "/listing/_delta_log";
    List<String> names = new ArrayList<>();
    for (int v = 12; v >= 0; v--) {
      names.add(String.format("%020d.json", v));
    }
    names.add(String.format("%020d.checkpoint.parquet", 10));
    names.add("_last_checkpoint");
    for (String name : names) {
      io.newOutputFile(log + "/" + name).writeAtomically(lines(name), false);
    }
    // Neither a subdirectory nor a sibling directory sharing the name prefix may show up.
    io.newOutputFile(log + "/_sidecars/a.parquet").writeAtomically(lines("x"), false);
    io.newOutputFile(log + "/00000000000000000011.json.d/x").writeAtomically(lines("x"), false);
    io.newOutputFile(root() + "/listing/_delta_log2/00000000000000000011.json").writeAtomically(lines("x"), false);

    String from = log + "/" + String.format("%020d.", 5);
    List<String> expected =
        names.stream().filter(n -> n.compareTo(String.format("%020d.", 5)) >= 0).sorted().map(n -> log + "/" + n).toList();
    assertEquals(expected, list(from));

    // An existing file name is included (>=), and the listing starts there.
    assertEquals(log + "/" + String.format("%020d.json", 12), list(log + "/" + String.format("%020d.json", 12)).get(0));
    FileStatus first;
    try (CloseableIterator<FileStatus> it = io.listFrom(log + "/" + String.format("%020d.json", 3))) {
      first = it.next();
    }
    assertEquals(String.format("%020d.json", 3).length() + 1, first.getSize());
    assertTrue(first.getModificationTime() > 0);

    // A missing directory is how Kernel learns there is no table.
    assertThrows(FileNotFoundException.class, () -> io.listFrom(root() + "/no-such-table/_delta_log/" + String.format("%020d.", 0)));
  }

  @Test
  void pathsAreKernelsFileUriForm() throws IOException {
    String table = root() + "/t1";
    assertEquals(table, io.resolvePath("file://" + dir + "/t1/"));
    assertEquals(table, io.resolvePath("file://localhost" + dir + "/t1"));
    assertEquals(table + "/a/b", io.resolvePath(table + "//a/b"));
    assertEquals(table, io.resolvePath(dir + "/t1"));
    assertThrows(IllegalArgumentException.class, () -> io.resolvePath("file://otherhost/t1"));
    assertThrows(IllegalArgumentException.class, () -> io.resolvePath("relative/t1"));
    assertThrows(IllegalArgumentException.class, () -> io.resolvePath("abfss://c@a.dfs.core.windows.net/t1"));

    // Names are not URI-escaped: Delta writes partition directories with literal '%'.
    String odd = table + "/ts=2024-01-01 00%3A00%3A00/part 0+1.parquet";
    io.newOutputFile(odd).writeAtomically(lines("x"), false);
    assertTrue(Files.exists(dir.resolve("t1/ts=2024-01-01 00%3A00%3A00/part 0+1.parquet")));
    assertEquals(odd, io.getFileStatus(odd).getPath());
    assertEquals(List.of(odd), list(table + "/ts=2024-01-01 00%3A00%3A00/part"));

    assertTrue(io.mkdirs(table + "/x/y"));
    assertTrue(Files.isDirectory(dir.resolve("t1/x/y")));
    assertTrue(io.mkdirs(table + "/x/y"), "mkdirs -p succeeds on an existing directory");
  }

  @Test
  void settingsComeFromTheEngineNotTheStorage() {
    // KernelEngine supplies the Parquet settings; HadoopFileIO over a default Configuration had
    // none of Kernel's or Parquet's keys either.
    assertEquals(java.util.Optional.empty(), io.getConf("parquet.compression"));
    assertEquals(java.util.Optional.empty(), io.getConf("delta.kernel.default.parquet.reader.batch-size"));
  }

  @ParameterizedTest
  @EnumSource(FilePublisher.Mode.class)
  void copiesAtomically(FilePublisher.Mode mode) throws IOException {
    FileIO io = withMode(mode);
    String src = root() + "/copy/_staged_commits/00000000000000000001.uuid.json";
    String dest = root() + "/copy/00000000000000000001.json";
    io.newOutputFile(src).writeAtomically(lines("{\"commitInfo\":{}}"), false);
    io.copyFileAtomically(src, dest, false);
    assertEquals("{\"commitInfo\":{}}\n", read(dest));
    assertThrows(FileAlreadyExistsException.class, () -> io.copyFileAtomically(src, dest, false));
    io.newOutputFile(src).writeAtomically(lines("{\"commitInfo\":{\"v\":2}}"), true);
    io.copyFileAtomically(src, dest, true);
    assertEquals("{\"commitInfo\":{\"v\":2}}\n", read(dest));
    assertThrows(FileNotFoundException.class, () -> io.copyFileAtomically(root() + "/copy/missing", dest, true));
  }

  @Test
  void missingFileIsFileNotFound() {
    assertThrows(FileNotFoundException.class, () -> io.getFileStatus(root() + "/nope.json"));
    assertThrows(FileNotFoundException.class, () -> io.newInputFile(root() + "/nope.json", -1).length());
    assertThrows(FileNotFoundException.class, () -> io.newInputFile(root() + "/nope.json", 10).newStream());
  }

  static void assertRange(SeekableInputStream in, byte[] content, int offset, int length) throws IOException {
    in.seek(offset);
    byte[] got = new byte[length];
    in.readFully(got, 0, length);
    assertArrayEquals(Arrays.copyOfRange(content, offset, offset + length), got, "range at " + offset);
    assertEquals(offset + length, in.getPos());
  }

  private List<String> list(String from) throws IOException {
    List<String> paths = new ArrayList<>();
    try (CloseableIterator<FileStatus> it = io.listFrom(from)) {
      it.forEachRemaining(s -> paths.add(s.getPath()));
    }
    return paths;
  }

  private String read(String path) throws IOException {
    try (SeekableInputStream in = io.newInputFile(path, -1).newStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static List<String> namesIn(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
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

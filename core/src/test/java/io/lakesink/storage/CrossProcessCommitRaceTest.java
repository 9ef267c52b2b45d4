package io.lakesink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.delta.AppendRequest;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two worker processes sharing one table directory (a shared volume) commit at the same time:
 * every commit must land under its own version, none lost.
 *
 * <p>Kernel's HadoopFileIO, LocalStorage's file I/O before LocalFileIO, fails this: its log store
 * checks that the commit file is absent, then renames onto it, and two processes can both pass
 * the check; the later rename replaces the earlier commit. The window is short, so the Delta
 * appends rarely hit it; the lockstep claims of {@link #everyCommitFileIsCreatedByOneProcessOnly}
 * do within a thousand versions. Run with {@code -Dlakesink.test.raceFileIO=hadoop} to see it.
 */
class CrossProcessCommitRaceTest {
  private static final int COMMITS_EACH = 30;
  private static final int CLAIMS_EACH = 1000;
  /** {@code local} (LocalStorage's file I/O) unless {@code -Dlakesink.test.raceFileIO=hadoop}. */
  private static final String FILE_IO = System.getProperty("lakesink.test.raceFileIO", "local");
  private static final List<String> WRITERS = List.of("alpha", "beta");

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void twoProcessesAppendingToOneTableLoseNoCommit() throws Exception {
    TableStorage storage = CommitRaceWriter.storage(dir, FILE_IO);
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(CommitRaceWriter.TABLE));
    // Creates the table (version 0); the empty append itself is not committed.
    table.prepareAppend(new AppendRequest(CommitRaceWriter.COLUMNS, List.of(), Map.of(), List.of(), io.lakesink.delta.CommitOffsets.NONE, Map.of()));
    assertEquals(0, table.version());

    Map<String, List<Long>> won = race("appends", COMMITS_EACH);

    int total = COMMITS_EACH * WRITERS.size();
    List<Long> claimed = new ArrayList<>();
    for (String writer : WRITERS) {
      assertEquals(COMMITS_EACH, won.get(writer).size());
      claimed.addAll(won.get(writer));
    }
    claimed.sort(null);
    assertEquals(
        LongStream.rangeClosed(1, total).boxed().toList(), claimed, "each version must be won by exactly one commit");

    Path log = dir.resolve(CommitRaceWriter.TABLE).resolve("_delta_log");
    assertEquals(
        LongStream.rangeClosed(0, total).boxed().collect(Collectors.toCollection(TreeSet::new)),
        commitVersions(log));
    assertEquals(List.of(), leftoverTempFiles(dir.resolve(CommitRaceWriter.TABLE)));

    // A fresh reader sees every append: all rows, each once, and both writers' last transaction.
    DeltaTable reread = new DeltaTable(KernelEngine.create(storage), storage.tableLocation(CommitRaceWriter.TABLE));
    assertEquals(total, reread.version());
    List<Long> ids = new ArrayList<>();
    for (Map<String, Object> row : DeltaTableReader.readAll(reread)) {
      ids.add((Long) row.get("id"));
    }
    ids.sort(null);
    List<Long> expected = new ArrayList<>();
    for (String writer : WRITERS) {
      for (int c = 1; c <= COMMITS_EACH; c++) {
        for (int k = 0; k < CommitRaceWriter.ROWS_PER_COMMIT; k++) {
          expected.add(CommitRaceWriter.expectedId(writer, c, k));
        }
      }
    }
    expected.sort(null);
    assertEquals(expected, ids, "rows of lost commits are missing");
    Map<String, Long> stored =
        reread.transactionVersions(WRITERS.stream().map(CommitRaceWriter::appId).toList());
    for (String writer : WRITERS) {
      assertEquals(COMMITS_EACH, stored.get(CommitRaceWriter.appId(writer)));
    }
  }

  /**
   * The same property without Kernel in between, at a much higher rate: both processes try to
   * create every commit file, in lockstep. Each file must be won by one process, and hold what
   * that process wrote.
   */
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void everyCommitFileIsCreatedByOneProcessOnly() throws Exception {
    Files.createDirectories(dir.resolve(CommitRaceWriter.CLAIMS).resolve("_delta_log"));
    Map<String, List<Long>> won = race("claims", CLAIMS_EACH);

    TableStorage storage = CommitRaceWriter.storage(dir, FILE_IO);
    Map<Long, String> winners = new TreeMap<>();
    List<String> doubleWins = new ArrayList<>();
    for (String writer : WRITERS) {
      for (long version : won.get(writer)) {
        String other = winners.put(version, writer);
        if (other != null) {
          doubleWins.add(version + " (" + other + ", " + writer + ")");
        }
      }
    }
    assertEquals(List.of(), doubleWins, "versions both processes were told they created: one commit was lost");
    assertEquals(LongStream.rangeClosed(1, CLAIMS_EACH).boxed().toList(), new ArrayList<>(winners.keySet()));
    for (Map.Entry<Long, String> e : winners.entrySet()) {
      String content =
          Files.readString(LocalFileIO.localPath(CommitRaceWriter.commitFile(storage, e.getKey())));
      assertEquals(e.getValue() + "\n", content, "content of version " + e.getKey());
    }
    assertEquals(List.of(), leftoverTempFiles(dir.resolve(CommitRaceWriter.CLAIMS)));
  }

  /** Runs the writers against each other, all starting at once; returns what each won. */
  private Map<String, List<Long>> race(String race, int count) throws Exception {
    Path barrier = Files.createFile(dir.resolve("barrier.lock"));
    List<Process> writers = new ArrayList<>();
    try (FileChannel lockFile = FileChannel.open(barrier, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      FileLock hold = lockFile.lock(); // released once every writer waits on it: no head start
      for (String writer : WRITERS) {
        writers.add(start(writer, barrier, FILE_IO, race, count));
      }
      for (int i = 0; i < writers.size(); i++) {
        BufferedReader out =
            new BufferedReader(new InputStreamReader(writers.get(i).getInputStream(), StandardCharsets.UTF_8));
        String writer = WRITERS.get(i);
        assertEquals("ready", out.readLine(), () -> "writer did not start: " + log(writer));
      }
      hold.release();
      for (int i = 0; i < writers.size(); i++) {
        Process p = writers.get(i);
        assertTrue(p.waitFor(240, TimeUnit.SECONDS), "writer still running");
        assertEquals(0, p.exitValue(), "writer " + WRITERS.get(i) + " failed: " + log(WRITERS.get(i)));
      }
    } finally {
      writers.forEach(Process::destroyForcibly);
    }
    Map<String, List<Long>> won = new LinkedHashMap<>();
    for (String writer : WRITERS) {
      List<Long> versions = Files.readAllLines(dir.resolve(writer + ".versions")).stream().map(Long::valueOf).toList();
      System.out.println(writer + " won versions " + versions);
      won.put(writer, versions);
    }
    return won;
  }

  private Process start(String writer, Path barrier, String fileIO, String race, int count) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder builder =
        new ProcessBuilder(
            java.toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            CommitRaceWriter.class.getName(),
            dir.toString(),
            writer,
            String.valueOf(count),
            barrier.toString(),
            fileIO,
            race);
    builder.redirectError(dir.resolve(writer + ".log").toFile());
    Process process = builder.start();
    assertNotNull(process);
    return process;
  }

  private String log(String writer) {
    try {
      Path file = dir.resolve(writer + ".log");
      return Files.exists(file) ? "\n--- " + writer + " ---\n" + Files.readString(file) : "";
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static Set<Long> commitVersions(Path log) throws IOException {
    try (Stream<Path> files = Files.list(log)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .map(n -> Long.valueOf(n.substring(0, 20)))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static List<Path> leftoverTempFiles(Path table) throws IOException {
    try (Stream<Path> files = Files.walk(table)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
    }
  }
}

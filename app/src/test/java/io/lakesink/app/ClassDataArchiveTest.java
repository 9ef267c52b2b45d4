package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive's failure branches, in a JVM started without {@code -XX:+RecordDynamicDumpInfo} (as
 * every test JVM is): the writing itself, and the launcher's property naming the file, are checked
 * through the real launcher in {@code DistributionTest}.
 */
class ClassDataArchiveTest {
  @Test
  void aJvmThatCannotWriteOneLeavesNothingBehind(@TempDir Path dir) throws Exception {
    Path archive = dir.resolve("lakesink-1.jsa");

    assertFalse(ClassDataArchive.write(archive), "this JVM records no dump information");

    assertEquals(List.of(), list(dir), "no archive and no part left");
  }

  @Test
  void anArchiveAnotherWorkerWroteIsKeptAsItIs(@TempDir Path dir) throws Exception {
    Path archive = dir.resolve("lakesink-1.jsa");
    Files.write(archive, new byte[] {1, 2, 3});

    assertFalse(ClassDataArchive.write(archive));

    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(archive));
    assertEquals(List.of("lakesink-1.jsa"), list(dir));
  }

  private static List<String> list(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}

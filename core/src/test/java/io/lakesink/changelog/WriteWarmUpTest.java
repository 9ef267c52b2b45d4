package io.lakesink.changelog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteWarmUpTest {
  @TempDir Path tmp;

  @Test
  void writesTwoCommitsAndLeavesNothingBehind() throws IOException {
    assertTrue(WriteWarmUp.run(tmp), "both warm-up commits land on the scratch table");
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(0, left.count(), "the scratch table is deleted");
    }
  }

  @Test
  void aFailureIsReportedNotThrown() throws IOException {
    Path file = Files.writeString(tmp.resolve("not-a-directory"), "x");
    assertFalse(WriteWarmUp.run(file), "no scratch directory can be created under a file");
  }
}

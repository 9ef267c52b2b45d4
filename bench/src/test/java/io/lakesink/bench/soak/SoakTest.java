package io.lakesink.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak's short version, on the same driver as bench/soak: three worker processes, five
 * SIGKILLs and one SIGSTOP past the poll interval on local storage, then every row checked.
 */
@Timeout(1200)
class SoakTest {
  @TempDir Path dir;

  @Test
  void fiveKillsAndAStopLoseAndDuplicateNothing() throws Exception {
    SoakSettings settings = new SoakSettings(
        20261130L,
        5,
        1,
        List.of("local"),
        3,
        3,
        50,
        Duration.ofSeconds(3),
        Duration.ofSeconds(12),
        Duration.ofSeconds(300),
        Duration.ofSeconds(600),
        List.of(SoakSettings.DEFAULT_WORKER_OPTS.split(" ")),
        // Surefire puts the test classpath (the application's and more) here.
        System.getProperty("java.class.path"),
        dir);

    List<SoakReport> reports = Soak.run(settings, new PrintStream(System.out, true));

    assertEquals(1, reports.size());
    SoakReport r = reports.get(0);
    assertTrue(r.passed(), r.text());
    assertEquals(5, r.kills(), r.text());
    assertEquals(1, r.stops(), r.text());
    assertTrue(r.changelogRows() > 0 && r.changelogRows() == r.changes(), "every change fed is one changelog row\n" + r.text());
    assertTrue(r.logs().assignmentRounds() > settings.workers(), "partitions moved after kills\n" + r.text());
  }
}

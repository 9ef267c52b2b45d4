package io.lakesink.app;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the worker's class-data sharing archive when the distribution's launcher asks for one
 * ({@value #PROPERTY}, with {@code -XX:+RecordDynamicDumpInfo}): after a run that delivered and
 * stopped cleanly, the classes it loaded are what the next start needs, and the JVM writes them,
 * parsed and verified, into a file the next start maps instead of reading the jars again
 * (docs/operations.md, "Start-up: class-data sharing").
 *
 * <p>Written here, from inside the JVM and only after such a run, rather than by the JVM at its
 * exit: a run that failed at start (a configuration error) would leave an archive of the few
 * classes it loaded for good, and a file the JVM wrote at exit could not be told complete from cut
 * short by a kill, which crashes the JVM that maps it. Here the JVM writes a file of this process's
 * own and it becomes the archive by an atomic rename only once written whole.
 *
 * <p>Best effort: any failure is logged and changes nothing else.
 */
final class ClassDataArchive {
  private static final Logger log = LoggerFactory.getLogger(ClassDataArchive.class);
  /** The archive to write, set by the launcher when there is none yet. */
  static final String PROPERTY = "lakesink.cds.archive";

  private ClassDataArchive() {}

  /** Writes the archive the launcher asked for, if it did and no other run wrote it meanwhile. */
  static void writeIfAsked() {
    String asked = System.getProperty(PROPERTY);
    if (asked != null && !asked.isBlank()) {
      write(Path.of(asked));
    }
  }

  /** @return whether {@code archive} now holds this JVM's classes */
  static boolean write(Path archive) {
    if (Files.exists(archive)) {
      return false; // another worker of this installation wrote it first
    }
    Path part = archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid() + ".part");
    try {
      long start = System.nanoTime();
      String answer = String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmCds",
          new Object[] {new String[] {"dynamic_dump", part.toString()}}, new String[] {String[].class.getName()}));
      if (!Files.isRegularFile(part) || Files.size(part) == 0) {
        // The JVM answers in text: without -XX:+RecordDynamicDumpInfo, or on a JVM that cannot, it says why.
        log.info("No class-data sharing archive was written ({}): the next start loads its classes from the jars",
            answer.strip().replaceAll("\\s+", " "));
        return false;
      }
      move(part, archive);
      log.info("Wrote the class-data sharing archive {} ({} MB, {} ms) for the next start", archive,
          Files.size(archive) >> 20, (System.nanoTime() - start) / 1_000_000);
      return true;
    } catch (JMException | IOException | RuntimeException e) {
      log.info("Could not write the class-data sharing archive {}: {}", archive, e.toString());
      return false;
    } finally {
      try {
        Files.deleteIfExists(part);
      } catch (IOException e) {
        log.debug("Could not delete {}: {}", part, e.toString());
      }
    }
  }

  private static void move(Path part, Path archive) throws IOException {
    try {
      Files.move(part, archive, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(part, archive); // the same directory: only exotic file systems get here
    }
  }
}

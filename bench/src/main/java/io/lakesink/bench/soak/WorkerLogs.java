package io.lakesink.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the workers' logs say happened, read after the soak: how often partitions moved, how many
 * commits a fence turned away, and how many kills hit a worker in the middle of its work.
 *
 * @param assignments "Assigned" lines (one per partition and table given to a worker)
 * @param assignmentRounds runs of consecutive "Assigned" lines in one log: a worker receiving
 *     partitions after a rebalance
 * @param fencedCommits commits refused because another writer had stored those offsets
 * @param retriedFlushes flush attempts that failed and were retried (e.g. concurrent merge commits conflicting)
 * @param killsOwning kills of a worker that had been assigned partitions
 * @param killsAfterCommit kills of a worker that had committed at least once
 * @param errors ERROR lines
 * @param firstErrors the first few ERROR lines, with their log's name
 */
record WorkerLogs(
    long assignments, long assignmentRounds, long fencedCommits, long retriedFlushes, long killsOwning, long killsAfterCommit, long errors,
    List<String> firstErrors) {
  private static final int EXAMPLES = 5;


  static WorkerLogs read(List<Path> logs) {
    long assignments = 0;
    long rounds = 0;
    long fenced = 0;
    long retried = 0;
    long killsOwning = 0;
    long killsAfterCommit = 0;
    long errors = 0;
    List<String> firstErrors = new ArrayList<>();
    for (Path log : logs) {
      boolean inRun = false;
      boolean owning = false;
      boolean committed = false;
      try (Stream<String> lines = Files.lines(log)) {
        for (String line : (Iterable<String>) lines::iterator) {
          if (line.startsWith("=== soak: ")) {
            // The driver's own markers (WorkerProcess): a new incarnation, or a signal.
            if (line.contains(" start ") && line.contains(" at ")) {
              owning = false;
              committed = false;
            } else if (line.contains(" SIGKILL ")) {
              killsOwning += owning ? 1 : 0;
              killsAfterCommit += committed ? 1 : 0;
            }
            continue;
          }
          boolean assigned = line.contains(" Assigned ");
          if (assigned) {
            assignments++;
            rounds += inRun ? 0 : 1;
            owning = true;
          }
          inRun = assigned;
          committed |= line.contains(" Committed ");
          fenced += line.contains(" fenced: ") ? 1 : 0;
          retried += line.contains(" failed (attempt ") ? 1 : 0;
          if (line.contains(" ERROR ")) {
            errors++;
            if (firstErrors.size() < EXAMPLES) {
              firstErrors.add(log.getFileName() + ": " + line);
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new WorkerLogs(assignments, rounds, fenced, retried, killsOwning, killsAfterCommit, errors, List.copyOf(firstErrors));
  }
}

package io.lakesink.delivery;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.changelog.ChangelogDelivery;
import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.DeltaTableReader;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers of the same partitions on one table — a worker that lost its partitions but does
 * not know it yet (a zombie) and their new owner — in every order their commits can reach the
 * log. Each offset must land exactly once, and a merged table must end at the latest change.
 */
class WriterFencingTest {
  @TempDir Path dir;
  final Subscription changelog = new Subscription("t", "t", DeliveryMode.CHANGELOG, List.of("id"), SourceFormat.JSON, true);
  final Subscription merge = new Subscription("t", "t", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);

  LocalStorage storage() {
    return new LocalStorage(dir, "lakesink");
  }

  DeltaTable table(String name) {
    LocalStorage s = storage();
    return new DeltaTable(KernelEngine.create(s), s.tableLocation(name));
  }

  DeliveryContext context(FlushHook hook) {
    return DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage())).withHook(hook).withBackoff(ms -> {});
  }

  BufferedDelivery writer(DeliveryMode mode, FlushHook hook) {
    return mode == DeliveryMode.CHANGELOG
        ? new ChangelogDelivery(changelog, table("t_APPEND"), context(hook))
        : new MergeDelivery(merge, table("t"), null, context(hook), MergeSettings.DEFAULT);
  }

  /** A worker taking a partition over: reads where the log says, as the Kafka worker does. */
  static long resumeAt(BufferedDelivery d, int partition) {
    SourcePartition p = new SourcePartition("t", partition);
    return d.storedOffsets(List.of(p)).getOrDefault(p, 0L);
  }

  /** Offsets [from, to) of a partition; key = offset % 7 so that later offsets update earlier rows. */
  static void read(BufferedDelivery d, int partition, long from, long to) {
    for (long o = from; o < to; o++) {
      d.accept(event("t", partition, o, Operation.UPDATE, 1000L + o, row("id", o % 7, "v", partition * 1000 + o)));
    }
  }

  List<Map<String, Object>> changelogRows() {
    return DeltaTableReader.readAll(table("t_APPEND"));
  }

  void assertEachOffsetOnce(int partition, long upTo) {
    List<Long> offsets = new ArrayList<>();
    for (Map<String, Object> r : changelogRows()) {
      if (((Number) r.get("__partition")).intValue() == partition) offsets.add(((Number) r.get("__offset")).longValue());
    }
    offsets.sort(null);
    List<Long> expected = new ArrayList<>();
    for (long o = 0; o < upTo; o++) expected.add(o);
    assertEquals(expected, offsets, "partition " + partition + ": every offset exactly once");
  }

  @Test
  void aZombieCommittingAfterTheNewOwnerWritesOnlyWhatTheOwnerDidNot() {
    BufferedDelivery zombie = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    resumeAt(zombie, 0);
    read(zombie, 0, 0, 20); // stalls before flushing; loses the partition meanwhile
    BufferedDelivery owner = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    read(owner, 0, resumeAt(owner, 0), 15);
    owner.flush();
    zombie.flush(); // resumes: must not write 0..14 again
    read(owner, 0, 15, 30);
    owner.flush(); // 15..19 are in the log now: writes 20..29 only
    assertEachOffsetOnce(0, 30);
  }

  @Test
  void theFenceChecksEveryPartitionNotOnlyTheFirst() {
    // The zombie's commit carries partitions 0 and 1; the owner took over partition 1 only.
    BufferedDelivery zombie = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    resumeAt(zombie, 0);
    resumeAt(zombie, 1);
    read(zombie, 0, 0, 10);
    read(zombie, 1, 0, 10);
    BufferedDelivery owner = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    read(owner, 1, resumeAt(owner, 1), 6);
    owner.flush();
    zombie.flush();
    assertEachOffsetOnce(0, 10);
    assertEachOffsetOnce(1, 10);
  }

  @Test
  void aCommitThatLosesTheRaceToAnOverlappingOneIsFencedAfterTheRebase() {
    // The owner commits while the zombie's files are written and its commit is in flight.
    BufferedDelivery owner = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    long ownerStart = resumeAt(owner, 0);
    Consumer<Void> ownerCommits = x -> {
      read(owner, 0, ownerStart, 12);
      owner.flush();
    };
    BufferedDelivery zombie = writer(DeliveryMode.CHANGELOG, once(FlushStep.BEFORE_COMMIT, ownerCommits));
    resumeAt(zombie, 0);
    read(zombie, 0, 0, 8);
    zombie.flush();
    read(owner, 0, 12, 20);
    owner.flush();
    assertEachOffsetOnce(0, 20);
  }

  @Test
  void writersOfDifferentPartitionsRebaseWithoutRewriting() {
    BufferedDelivery a = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    long aStart = resumeAt(a, 0);
    DeltaTable probe = table("t_APPEND");
    List<Long> versionsAtACommit = new ArrayList<>();
    BufferedDelivery b = writer(DeliveryMode.CHANGELOG, once(FlushStep.BEFORE_COMMIT, x -> {
      read(a, 0, aStart, 5);
      a.flush(); // lands first, taking the version b's commit was prepared for
      probe.refresh();
      versionsAtACommit.add(probe.version());
    }));
    resumeAt(b, 1);
    read(b, 1, 0, 5);
    b.flush();
    probe.refresh();
    assertEquals(versionsAtACommit.get(0) + 1, probe.version(), "b's commit was moved onto a's");
    assertEachOffsetOnce(0, 5);
    assertEachOffsetOnce(1, 5);
  }

  @Test
  void aZombieMergeNeverOverwritesNewerRowsWithOlderOnes() {
    BufferedDelivery zombie = writer(DeliveryMode.MERGE, FlushHook.NONE);
    resumeAt(zombie, 0);
    read(zombie, 0, 0, 10);
    BufferedDelivery owner = writer(DeliveryMode.MERGE, FlushHook.NONE);
    read(owner, 0, resumeAt(owner, 0), 25);
    owner.flush();
    zombie.flush(); // holds older versions of every key: must change nothing
    Map<Long, Long> expected = new TreeMap<>();
    for (long o = 0; o < 25; o++) expected.put(o % 7, o);
    Map<Long, Long> actual = new TreeMap<>();
    for (Map<String, Object> r : DeltaTableReader.readAll(table("t"))) {
      actual.put(((Number) r.get("id")).longValue(), ((Number) r.get("v")).longValue());
    }
    assertEquals(expected, actual);
    assertEquals(Map.of(new SourcePartition("t", 0), 25L), zombie.storedOffsets(List.of(new SourcePartition("t", 0))),
        "the stored offset never moves backwards");
  }

  @Test
  void aTableDeletedUnderTheWriterIsQuarantinedNotRecreatedWithoutItsHistory() throws Exception {
    BufferedDelivery d = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    resumeAt(d, 0);
    read(d, 0, 0, 5);
    d.flush();
    Path location = dir.resolve("lakesink").resolve("t_APPEND");
    deleteRecursively(location);
    read(d, 0, 5, 10);
    org.junit.jupiter.api.Assertions.assertThrows(io.lakesink.error.TableFailureException.class, d::flush);
    assertFalse(d.state().delivering());
    assertTrue(d.status().reason().contains("is gone"), d.status().reason());
    assertFalse(java.nio.file.Files.exists(location.resolve("_delta_log")), "nothing was committed into the vanished log");
  }

  @Test
  void aTableReplacedUnderTheWriterIsQuarantined() throws Exception {
    BufferedDelivery d = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    resumeAt(d, 0);
    read(d, 0, 0, 5);
    d.flush();
    deleteRecursively(dir.resolve("lakesink").resolve("t_APPEND"));
    BufferedDelivery other = writer(DeliveryMode.CHANGELOG, FlushHook.NONE);
    read(other, 0, 0, 3);
    other.flush(); // someone creates a new table at the same place, one version only
    read(d, 0, 5, 10);
    org.junit.jupiter.api.Assertions.assertThrows(io.lakesink.error.TableFailureException.class, d::flush);
    assertTrue(d.status().reason().contains("is gone") || d.status().reason().contains("replaced"), d.status().reason());
    assertEquals(3, changelogRows().size(), "the new table was not written into");
  }

  static FlushHook once(FlushStep at, Consumer<Void> action) {
    boolean[] done = {false};
    return (table, step) -> {
      if (step == at && !done[0]) {
        done[0] = true;
        action.accept(null);
      }
    };
  }

  static void deleteRecursively(Path p) throws java.io.IOException {
    try (var walk = java.nio.file.Files.walk(p)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

}

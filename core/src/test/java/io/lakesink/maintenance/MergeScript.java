package io.lakesink.maintenance;

import static io.lakesink.testing.Events.event;
import static io.lakesink.testing.Events.row;

import io.lakesink.config.DeliveryMode;
import io.lakesink.config.SourceFormat;
import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryContext;
import io.lakesink.delivery.FlushPolicy;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.event.ChangeEvent;
import io.lakesink.event.Operation;
import io.lakesink.merge.MergeDelivery;
import io.lakesink.merge.MergeSettings;
import io.lakesink.quarantine.QuarantineStore;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A deterministic stream of merges into {@code items} (creates, updates, deletes of 100 keys), and
 * the process that delivers it: the other writer of {@link OptimizeAgainstAnotherProcessTest}.
 *
 * <p>Arguments: the storage directory, the number of batches, the seed. Delivers one batch per
 * commit, with deletion vectors; after each it prints {@code merged} and waits for a line on its
 * input, so that the test can start an optimization just before the next merge.
 */
public final class MergeScript {
  static final int BATCH = 10;
  static final int KEYS = 100;

  private MergeScript() {}

  /** The batches, each one merge. */
  static List<List<ChangeEvent>> batches(long seed, int count) {
    Random random = new Random(seed);
    Map<Long, String> live = new TreeMap<>();
    List<List<ChangeEvent>> batches = new ArrayList<>();
    long offset = 0;
    for (int b = 0; b < count; b++) {
      List<ChangeEvent> batch = new ArrayList<>();
      for (int i = 0; i < BATCH; i++, offset++) {
        long id = random.nextInt(KEYS);
        Operation op = !live.containsKey(id) ? Operation.CREATE : random.nextInt(8) == 0 ? Operation.DELETE : Operation.UPDATE;
        String name = "v" + offset;
        batch.add(event("t", 0, offset, op, 1000L + offset, row("id", id, "name", name)));
        if (op == Operation.DELETE) {
          live.remove(id);
        } else {
          live.put(id, name);
        }
      }
      batches.add(batch);
    }
    return batches;
  }

  /** What the table holds once every batch is merged: id=name, sorted. */
  static List<String> model(long seed, int count) {
    Map<Long, String> live = new TreeMap<>();
    for (List<ChangeEvent> batch : batches(seed, count)) {
      for (ChangeEvent e : batch) {
        long id = (Long) e.value("id");
        if (e.op() == Operation.DELETE) {
          live.remove(id);
        } else {
          live.put(id, (String) e.value("name"));
        }
      }
    }
    return live.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
  }

  static MergeDelivery delivery(Path dir) {
    LocalStorage storage = new LocalStorage(dir, "lakesink");
    Subscription s = new Subscription("t", "items", DeliveryMode.MERGE, List.of("id"), SourceFormat.JSON, true);
    DeltaTable table = new DeltaTable(KernelEngine.create(storage), storage.tableLocation("items"));
    return new MergeDelivery(s, table, null, DeliveryContext.of(FlushPolicy.DEFAULT, new QuarantineStore(storage)),
        MergeSettings.DEFAULT);
  }

  public static void main(String[] args) throws java.io.IOException {
    Path dir = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    long seed = Long.parseLong(args[2]);
    List<List<ChangeEvent>> batches = batches(seed, count);
    MergeDelivery d = delivery(dir);
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    for (List<ChangeEvent> batch : batches) {
      batch.forEach(d::accept);
      d.flush();
      System.out.println("merged");
      System.out.flush();
      if (in.readLine() == null) {
        return;
      }
    }
  }
}

package io.lakesink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bounded key space workload of the kept-table benchmark, and what its check reads from an event. */
class BenchEventsTest {
  @Test
  void aBoundedKeySpaceCreatesEveryKeyThenUpdatesDeletesAndCreatesAgain() {
    long keys = 1_000;
    Map<String, Integer> ops = new HashMap<>();
    BitSet live = new BitSet();
    List<String> refused = new ArrayList<>();
    BenchEvents.generate(20_000, 4, false, keys, (partition, op, id, key, value) -> {
      ops.merge(op, 1, Integer::sum);
      // Each operation is what Debezium would send for the key's state: create only when absent.
      if (id < 1 || id > keys || partition != id % 4 || op.equals("c") == live.get((int) id)) {
        refused.add(op + " " + id + " on partition " + partition);
      }
      live.set((int) id, !op.equals("d"));
      assertTrue(new String(value, StandardCharsets.UTF_8).contains("\"op\":\"" + op + "\""));
    });
    assertEquals(List.of(), refused);
    // 1,000 creates, then of 19,000 draws about 82 % updates, 9 % deletes, 9 % creates again.
    assertTrue(ops.get("u") > 14_500 && ops.get("u") < 17_000, ops.toString());
    assertTrue(ops.get("d") > 1_200 && ops.get("d") < 2_300, ops.toString());
    assertEquals(ops.get("c") - keys, ops.get("d") - (keys - live.cardinality()), "every re-insert follows a delete: " + ops);
  }

  @Test
  void theUnboundedWorkloadIsUnchanged() {
    List<String> bounded = new ArrayList<>();
    List<String> plain = new ArrayList<>();
    BenchEvents.generate(500, 1, false, 0, (partition, op, id, key, value) -> bounded.add(new String(value, StandardCharsets.UTF_8)));
    BenchEvents.generate(500, 1, (partition, key, value) -> plain.add(new String(value, StandardCharsets.UTF_8)));
    assertEquals(plain, bounded);
    assertTrue(plain.stream().filter(v -> v.contains("\"op\":\"c\"")).count() > 300, "mostly creates of new keys");
  }

  @Test
  void theAmountIsReadFromTheAfterImage() {
    String update = "{\"before\":{\"id\":1,\"amount\":\"1.00\"},\"after\":{\"id\":1,\"customer_id\":7,\"status\":\"paid\","
        + "\"amount\":\"1234.05\",\"currency\":\"EUR\"},\"op\":\"u\"}";
    assertEquals("1234.05", KeptTableFigures.amount(update.getBytes(StandardCharsets.UTF_8)));
  }
}

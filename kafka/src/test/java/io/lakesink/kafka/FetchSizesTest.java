package io.lakesink.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class FetchSizesTest {
  @Test
  void aFetchStaysUnderHalfARegionWithRoomForItsHeaders() {
    Map<String, Object> smallest = FetchSizes.forRegion(1 << 20);
    assertEquals((512 << 10) - (64 << 10), smallest.get(ConsumerConfig.FETCH_MAX_BYTES_CONFIG));
    assertEquals((512 << 10) - (64 << 10), smallest.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG));
    Map<String, Object> large = FetchSizes.forRegion(32 << 20);
    assertEquals((16 << 20) - (64 << 10), large.get(ConsumerConfig.FETCH_MAX_BYTES_CONFIG));
  }

  @Test
  void theRegionIsThisJvmsWhenItRunsG1() {
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    long expected = Boolean.parseBoolean(vm.getVMOption("UseG1GC").getValue())
        ? Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue())
        : FetchSizes.SMALLEST_REGION;
    assertEquals(expected, FetchSizes.regionBytes());
    int fetch = (int) FetchSizes.defaults().get(ConsumerConfig.FETCH_MAX_BYTES_CONFIG);
    assertTrue(fetch < expected / 2, fetch + " bytes would be a humongous object in regions of " + expected);
  }

  @Test
  void theWorkersConsumerFetchesSoUnlessTheConfigurationSaysOtherwise() {
    Properties defaults = KafkaWorker.consumerProperties(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"));
    assertEquals(FetchSizes.defaults().get(ConsumerConfig.FETCH_MAX_BYTES_CONFIG), defaults.get(ConsumerConfig.FETCH_MAX_BYTES_CONFIG));
    assertEquals(FetchSizes.defaults().get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG),
        defaults.get(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG));

    Properties configured = KafkaWorker.consumerProperties(Map.of(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, "52428800",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true"));
    assertEquals("52428800", configured.get(ConsumerConfig.FETCH_MAX_BYTES_CONFIG));
    assertEquals(false, configured.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG), "offsets are committed by the worker only");
  }
}

package io.lakesink.kafka;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * How much one Kafka fetch may bring: small enough that the consumer's response buffer is not a
 * humongous object for G1, the JVM's default collector.
 *
 * <p>The consumer reads each fetch response into one array of the response's size, and the
 * worker decodes records in place in it. G1 allocates an array of half a heap region or more
 * outside the young generation, as a humongous object, and checks at every such allocation
 * whether to start a concurrent marking cycle. With fetches of several megabytes (8 MB per
 * partition, the worker's earlier default) every response was one, and most of the worker's
 * marking cycles were started by them, not by live data (docs/performance.md). A response kept
 * under half a region is an ordinary young object, dead by the next collection, and small enough
 * to stay in the processor's cache while its records are decoded.
 */
public final class FetchSizes {
  /** Room for the response's own headers beside the records (per topic and partition). */
  static final int HEADERS = 64 << 10;
  /** G1's smallest region, assumed when the JVM does not say. */
  static final long SMALLEST_REGION = 1 << 20;

  private FetchSizes() {}

  /**
   * The worker's default fetch settings ({@code fetch.max.bytes}, {@code
   * max.partition.fetch.bytes}) for this JVM; the configuration's consumer properties override them.
   */
  public static Map<String, Object> defaults() {
    return forRegion(regionBytes());
  }

  /** The fetch settings for a heap of G1 regions of {@code regionBytes}. */
  static Map<String, Object> forRegion(long regionBytes) {
    int bytes = (int) Math.min(Integer.MAX_VALUE, regionBytes / 2 - HEADERS);
    return Map.of(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, bytes, ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, bytes);
  }

  /**
   * This JVM's G1 region size; the smallest region when it runs another collector or does not
   * say (a bound that is only smaller than needed costs a few more fetches, never a humongous one).
   */
  static long regionBytes() {
    try {
      HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      if (vm != null && Boolean.parseBoolean(vm.getVMOption("UseG1GC").getValue())) {
        return Math.max(SMALLEST_REGION, Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue()));
      }
    } catch (RuntimeException | LinkageError notHotSpot) {
      // another JVM: assume the smallest region
    }
    return SMALLEST_REGION;
  }
}

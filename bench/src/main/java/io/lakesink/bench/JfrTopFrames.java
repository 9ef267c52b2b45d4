package io.lakesink.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * The top frames of a worker's JFR recording ({@code bench/run} with {@code JFR=1}): CPU samples
 * ({@code jdk.ExecutionSample}) by thread group, the methods that were on CPU themselves (self),
 * overall and per thread group, and the lakesink method nearest the top of each sample (where
 * lakesink's code hands the time to a library: decode, Parquet, Kafka). Then the allocation
 * samples ({@code jdk.ObjectAllocationSample}, by their weight: an estimate of the bytes
 * allocated) by thread group, by class, and by the nearest lakesink frame with the class: where
 * the garbage the collector works for comes from.
 *
 * <pre>java -cp ... io.lakesink.bench.JfrTopFrames recording.jfr [top]</pre>
 */
public final class JfrTopFrames {
  private JfrTopFrames() {}

  public static void main(String[] args) throws IOException {
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
    Map<String, Map<String, Integer>> selfByGroup = new TreeMap<>();
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> lakesink = new HashMap<>();
    Map<String, Map<String, Integer>> lakesinkByGroup = new TreeMap<>();
    Map<String, Integer> groups = new TreeMap<>();
    int samples = 0;
    Allocations allocations = new Allocations();
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      if (e.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
        allocations.add(e);
        continue;
      }
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      samples++;
      String group = group(e.getThread("sampledThread"));
      groups.merge(group, 1, Integer::sum);
      RecordedStackTrace stack = e.getStackTrace();
      List<RecordedFrame> frames = stack.getFrames();
      if (frames.isEmpty()) {
        continue;
      }
      String method = name(frames.get(0));
      self.merge(method, 1, Integer::sum);
      selfByGroup.computeIfAbsent(group, g -> new HashMap<>()).merge(method, 1, Integer::sum);
      for (RecordedFrame f : frames) {
        if (f.getMethod() != null && f.getMethod().getType().getName().startsWith("io.lakesink.")) {
          lakesink.merge(name(f), 1, Integer::sum);
          lakesinkByGroup.computeIfAbsent(group, g -> new HashMap<>()).merge(name(f), 1, Integer::sum);
          break;
        }
      }
    }
    System.out.printf(Locale.ROOT, "%,d CPU samples (jdk.ExecutionSample) in %s%n%nBy thread group:%n", samples, args[0]);
    int total = Math.max(1, samples);
    groups.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .forEach(g -> System.out.printf(Locale.ROOT, "  %5.1f %%  %s%n", 100.0 * g.getValue() / total, g.getKey()));
    print("Top self frames, all threads", self, total, top);
    print("Nearest lakesink frame of each sample (inclusive of the libraries it calls)", lakesink, total, top);
    selfByGroup.forEach((group, frames) -> {
      if (groups.get(group) * 20 >= total) { // the groups with at least 5 % of the samples
        print("Top self frames, " + group, frames, total, 12);
        print("Nearest lakesink frame, " + group, lakesinkByGroup.getOrDefault(group, Map.of()), total, 12);
      }
    });
    allocations.print(top);
  }

  /** A thread's group: its name without a trailing number or Kafka's " | client" suffix. */
  private static String group(jdk.jfr.consumer.RecordedThread t) {
    String thread = t == null ? null : t.getJavaName();
    return thread == null ? "?" : thread.replaceAll(" \\|.*$", "").replaceAll("[0-9]+$", "");
  }

  /** The allocation samples' weights (bytes) by thread group, class, and nearest lakesink frame. */
  private static final class Allocations {
    private final Map<String, Long> byGroup = new HashMap<>();
    private final Map<String, Long> byClass = new HashMap<>();
    private final Map<String, Long> byLakesinkFrame = new HashMap<>();
    private long total;

    void add(RecordedEvent e) {
      long weight = e.getLong("weight");
      String type = e.getClass("objectClass") == null ? "?" : e.getClass("objectClass").getName();
      total += weight;
      byGroup.merge(group(e.getThread("eventThread")), weight, Long::sum);
      byClass.merge(type, weight, Long::sum);
      if (e.getStackTrace() != null) {
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
          if (f.getMethod() != null && f.getMethod().getType().getName().startsWith("io.lakesink.")) {
            byLakesinkFrame.merge(name(f) + ":" + f.getLineNumber() + " [" + type + "]", weight, Long::sum);
            break;
          }
        }
      }
    }

    void print(int top) {
      if (total == 0) {
        return;
      }
      System.out.printf(Locale.ROOT, "%nAllocation (jdk.ObjectAllocationSample weights, an estimate): %,d MB%n", total >> 20);
      printBytes("By thread group", byGroup, top);
      printBytes("By class", byClass, top);
      printBytes("By nearest lakesink frame and line [class]", byLakesinkFrame, top);
    }

    private void printBytes(String title, Map<String, Long> bytes, int top) {
      System.out.printf(Locale.ROOT, "%n%s:%n", title);
      bytes.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Comparator.comparing(Map.Entry::getKey)))
          .limit(top).forEach(m -> System.out.printf(Locale.ROOT, "  %5.1f %%  %,7d MB  %s%n", 100.0 * m.getValue() / total, m.getValue() >> 20, m.getKey()));
    }
  }

  private static String name(RecordedFrame f) {
    return f.getMethod() == null ? "?" : f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(String title, Map<String, Integer> counts, int total, int top) {
    System.out.printf(Locale.ROOT, "%n%s:%n", title);
    counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Comparator.comparing(Map.Entry::getKey)))
        .limit(top).forEach(m -> System.out.printf(Locale.ROOT, "  %5.1f %%  %s%n", 100.0 * m.getValue() / total, m.getKey()));
  }
}

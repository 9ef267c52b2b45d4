package io.lakesink.bench;

import io.lakesink.error.SourcePosition;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Two builds' JSON decoders side by side in one JVM: each build's kafka module jar in a class
 * loader of its own, both decoding the changelog benchmark's events from memory in turn (A B, B A,
 * …) on one thread, so both run under the same machine load. Reports each one's thread CPU and
 * exact allocated bytes per event (ThreadMXBean), medians over the rounds after three warm-up
 * rounds. The class path must hold everything but the kafka module (docs/performance.md shows
 * how).
 *
 * <pre>DecoderAB &lt;kafka-a.jar&gt; &lt;kafka-b.jar&gt; [events, 200000] [rounds, 10]</pre>
 */
public final class DecoderAB {
  private DecoderAB() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    BenchEvents.generate(events, 4, (p, k, v) -> {
      keys.add(k);
      values.add(v);
    });
    Variant[] variants = {new Variant("A " + args[0], args[0]), new Variant("B " + args[1], args[1])};
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    double[][] cpu = new double[2][rounds];
    double[][] allocated = new double[2][rounds];
    for (int warm = 0; warm < 3; warm++) {
      for (Variant v : variants) {
        v.run(keys, values);
      }
    }
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < 2; i++) {
        int which = r % 2 == 0 ? i : 1 - i;
        long cpu0 = mx.getCurrentThreadCpuTime();
        long allocated0 = mx.getThreadAllocatedBytes(thread);
        variants[which].run(keys, values);
        cpu[which][r] = (mx.getCurrentThreadCpuTime() - cpu0) / 1e3 / events;
        allocated[which][r] = (double) (mx.getThreadAllocatedBytes(thread) - allocated0) / events;
      }
    }
    for (int i = 0; i < 2; i++) {
      System.out.printf("%s: CPU µs/event median %.3f (min %.3f, max %.3f); allocated bytes/event median %.0f%n",
          variants[i].name, median(cpu[i]), min(cpu[i]), max(cpu[i]), median(allocated[i]));
    }
    System.out.printf("B/A: CPU %.3f, allocation %.3f%n", median(cpu[1]) / median(cpu[0]), median(allocated[1]) / median(allocated[0]));
  }

  private static double median(double[] a) {
    double[] s = a.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static double min(double[] a) {
    return Arrays.stream(a).min().orElseThrow();
  }

  private static double max(double[] a) {
    return Arrays.stream(a).max().orElseThrow();
  }

  /** One build's decoder, reached by reflection: its classes are not the benchmark's. */
  private static final class Variant {
    final String name;
    final Object decoder;
    final Method decode;
    long decoded;

    Variant(String name, String jar) throws Exception {
      this.name = name;
      ClassLoader loader = new URLClassLoader(new URL[] {Path.of(jar).toUri().toURL()}, DecoderAB.class.getClassLoader());
      Class<?> c = loader.loadClass("io.lakesink.kafka.decode.DebeziumJsonDecoder");
      if (c.getClassLoader() != loader) {
        throw new IllegalStateException("the class path holds a kafka module: both sides would run the same decoder");
      }
      decoder = c.getConstructor().newInstance();
      decode = c.getMethod("decode", SourcePosition.class, byte[].class, ByteBuffer.class);
    }

    /** Decodes every record where it lies, as the worker does (a view of the fetched bytes). */
    void run(List<byte[]> keys, List<byte[]> values) throws Exception {
      for (int i = 0; i < values.size(); i++) {
        Object e = decode.invoke(decoder, new SourcePosition("bench.p4", i & 3, i), keys.get(i), ByteBuffer.wrap(values.get(i)));
        decoded += e == null ? 0 : 1;
      }
    }
  }
}

package io.lakesink.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JvmThreadCpuTest {
  @Test
  void compilerCollectorAndVmThreadsAreGroupedOthersLeftOut() {
    assertEquals("jit", JvmThreadCpu.group("C2 CompilerThre"));
    assertEquals("jit", JvmThreadCpu.group("C1 CompilerThre"));
    assertEquals("gc", JvmThreadCpu.group("GC Thread#1"));
    assertEquals("gc", JvmThreadCpu.group("G1 Conc#0"));
    assertEquals("gc", JvmThreadCpu.group("G1 Refine#0"));
    assertEquals("vm", JvmThreadCpu.group("VM Thread"));
    assertNull(JvmThreadCpu.group("lakesink-writer"));
    assertNull(JvmThreadCpu.group("java"));
  }

  @Test
  void userAndSystemTimeAreReadPastANameWithSpacesAndParentheses() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    String stat = "4242 (C2 (Compiler) 1) S 1 4242 4242 0 -1 4194368 9 0 0 0 1234 56 0 0 20 0 30 0 5 0";
    assertEquals(12.90, JvmThreadCpu.seconds(stat), 1e-9);
  }

  @Test
  void thisJvmsCompilersHaveUsedSomeCpu() {
    if (!Files.isDirectory(Path.of("/proc/self/task"))) {
      return; // not Linux: nothing to read
    }
    Map<String, Double> cpu = JvmThreadCpu.now();
    assertTrue(cpu.containsKey("jit"), "compiler threads found: " + cpu);
    assertTrue(cpu.get("jit") > 0, "a JVM that ran JUnit has compiled something: " + cpu);
  }
}

package io.lakesink.dist;

import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM options both launchers (the archive's and the source checkout's) pass: the parallel
 * collector unless LAKESINK_JAVA_OPTS names a collector, the heap default only without
 * LAKESINK_JAVA_OPTS. A stand-in java prints what it was given.
 */
@Timeout(60)
class LauncherJavaOptionsTest {
  @TempDir Path home;

  /** The arguments java was started with by the archive's launcher. */
  private String archive(String javaOpts) throws Exception {
    Files.createDirectories(home.resolve("bin"));
    Files.copy(Path.of(System.getProperty("lakesink.root"), "dist/src/bin/lakesink"), home.resolve("bin/lakesink"), REPLACE_EXISTING);
    Path javaHome = home.resolve("jdk");
    script(Files.createDirectories(javaHome.resolve("bin")).resolve("java"), "echo \"$*\"");
    ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/lakesink").toString(), "--version");
    pb.environment().put("JAVA_HOME", javaHome.toString());
    return run(pb, javaOpts);
  }

  /** The same with the source checkout's launcher, its build already done. */
  private String source(String javaOpts) throws Exception {
    Files.createDirectories(home.resolve("bin"));
    Files.copy(Path.of(System.getProperty("lakesink.root"), "bin/lakesink"), home.resolve("bin/lakesink"), REPLACE_EXISTING);
    Files.writeString(Files.createDirectories(home.resolve("app/target")).resolve("classpath.txt"), "/lib/x.jar");
    Path tools = Files.createDirectories(home.resolve("tools"));
    script(tools.resolve("java"), "echo \"$*\"");
    script(tools.resolve("mvn"), "exit 1"); // not called: nothing is newer than the stamp
    ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/lakesink").toString(), "--version");
    pb.environment().put("PATH", tools + ":" + System.getenv("PATH"));
    return run(pb, javaOpts);
  }

  private String run(ProcessBuilder pb, String javaOpts) throws Exception {
    if (javaOpts == null) {
      pb.environment().remove("LAKESINK_JAVA_OPTS");
    } else {
      pb.environment().put("LAKESINK_JAVA_OPTS", javaOpts);
    }
    Path out = home.resolve("out.txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(home.resolve("err.txt").toFile()).start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), Files.readString(home.resolve("err.txt")));
    String args = Files.readString(out, StandardCharsets.UTF_8).strip();
    return args.substring(0, args.indexOf(" -cp "));
  }

  private static void script(Path file, String body) throws Exception {
    Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @Test
  void theArchivesLauncherAddsTheParallelCollectorUnlessTheOptionsNameOne() throws Exception {
    assertEquals("-XX:+UseParallelGC -Xmx512m", archive(null));
    assertEquals("-XX:+UseParallelGC -Xmx2g -Dx=1", archive("-Xmx2g -Dx=1"));
    assertEquals("-Xmx2g -XX:+UseG1GC", archive("-Xmx2g -XX:+UseG1GC"));
    assertEquals("-XX:+UseZGC", archive("-XX:+UseZGC"));
  }

  @Test
  void theSourceLauncherDoesTheSame() throws Exception {
    assertEquals("-XX:+UseParallelGC -Xmx512m", source(null));
    assertEquals("-XX:+UseParallelGC -Xmx768m", source("-Xmx768m"));
    assertEquals("-XX:+UseSerialGC -Xmx768m", source("-XX:+UseSerialGC -Xmx768m"));
  }
}

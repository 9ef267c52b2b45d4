package io.lakesink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * The source checkout's bin/lakesink, with stand-ins for mvn and java on the PATH (the real
 * build would install into ~/.m2): it prints nothing of Maven's, escape codes included, unless
 * the build fails, and then the build's output without the escape codes.
 */
@Timeout(60)
class SourceLauncherTest {
  private static final String ESC = "\u001b[0m";
  @TempDir Path checkout;

  private record Run(int exit, String out, String err) {}

  private Run launch(String mvnBody) throws Exception {
    Files.createDirectories(checkout.resolve("bin"));
    Files.copy(Path.of(System.getProperty("lakesink.root"), "bin/lakesink"), checkout.resolve("bin/lakesink"));
    Path tools = Files.createDirectories(checkout.resolve("tools"));
    script(tools.resolve("mvn"), mvnBody);
    script(tools.resolve("java"), "echo \"java $*\"");
    ProcessBuilder pb = new ProcessBuilder("bash", checkout.resolve("bin/lakesink").toString(), "--version");
    pb.environment().put("PATH", tools + ":" + System.getenv("PATH"));
    Path out = checkout.resolve("out.txt");
    Path err = checkout.resolve("err.txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  private static void script(Path file, String body) throws Exception {
    Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @Test
  void aBuildThatWorksPrintsNothingOfMaven() throws Exception {
    Run r = launch("printf '" + ESC + ESC + "'; printf '" + ESC + "' >&2; mkdir -p app/target; echo /lib/x.jar > app/target/classpath.txt");
    assertEquals(0, r.exit, r.err);
    assertEquals("lakesink: building (first run or sources changed)...\n", r.err);
    assertTrue(r.out.startsWith("java ") && r.out.contains("io.lakesink.app.Main --version"), r.out);
    assertFalse(r.out.contains(ESC), r.out);
  }

  @Test
  void aBuildThatFailsShowsItsOutputWithoutEscapeCodes() throws Exception {
    Run r = launch("printf '" + ESC + "[ERROR] cannot compile Foo.java\\n'; exit 1");
    assertEquals(1, r.exit);
    assertTrue(r.err.contains("[ERROR] cannot compile Foo.java"), r.err);
    assertTrue(r.err.contains("the build failed"), r.err);
    assertFalse(r.err.contains("\u001b"), r.err);
    assertEquals("", r.out);
  }
}

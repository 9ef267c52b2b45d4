package io.lakesink.storage.azure.testing;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Installs Azurite from npm once per machine into {@code ${user.home}/.cache/lakesink/azurite}
 * (override with the system property {@code lakesink.azurite.dir}) and reuses it afterwards. A
 * file lock keeps concurrent builds (several modules, several JVMs) from installing at once.
 */
final class AzuriteInstall {
  static final String VERSION = "3.37.0";
  private static final Pattern VERSION_FIELD = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"");
  private static final long INSTALL_TIMEOUT_MINUTES = 10;

  private AzuriteInstall() {}

  /** The azurite-blob launcher, installing Azurite first if needed. */
  static synchronized Path blobLauncher() {
    Path dir = installDir();
    Path launcher = dir.resolve("node_modules/.bin/azurite-blob");
    if (installed(dir)) {
      return launcher;
    }
    try {
      Files.createDirectories(dir);
      try (FileChannel lockFile =
              FileChannel.open(
                  dir.resolveSibling(dir.getFileName() + ".lock"),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.WRITE);
          FileLock lock = lockFile.lock()) {
        if (!installed(dir)) { // another JVM may have finished while we waited
          npmInstall(dir);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot install Azurite into " + dir, e);
    }
    if (!installed(dir)) {
      throw new IllegalStateException("npm finished but Azurite " + VERSION + " is not in " + dir);
    }
    return launcher;
  }

  static Path installDir() {
    String override = System.getProperty("lakesink.azurite.dir");
    return override != null
        ? Path.of(override)
        : Path.of(System.getProperty("user.home"), ".cache", "lakesink", "azurite");
  }

  private static boolean installed(Path dir) {
    Path manifest = dir.resolve("node_modules/azurite/package.json");
    if (!Files.isRegularFile(manifest) || !Files.exists(dir.resolve("node_modules/.bin/azurite-blob"))) {
      return false;
    }
    try {
      Matcher m = VERSION_FIELD.matcher(Files.readString(manifest));
      return m.find() && m.group(1).equals(VERSION);
    } catch (IOException e) {
      return false;
    }
  }

  private static void npmInstall(Path dir) throws IOException {
    Path log = dir.resolve("npm-install.log");
    Process npm =
        new ProcessBuilder(
                List.of(
                    "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                    dir.toString(), "azurite@" + VERSION))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      if (!npm.waitFor(INSTALL_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        npm.destroyForcibly();
        throw new IllegalStateException("npm install azurite timed out; log: " + log);
      }
    } catch (InterruptedException e) {
      npm.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while installing Azurite", e);
    }
    if (npm.exitValue() != 0) {
      throw new IllegalStateException(
          "npm install azurite@" + VERSION + " failed (exit " + npm.exitValue() + "):\n"
              + Files.readString(log));
    }
  }
}

package io.lakesink.connect;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/** The plugin archive {@code mvn package} built, unpacked as an operator puts it under plugin.path. */
final class PluginArchive {
  private PluginArchive() {}

  /** Unzips the archive into {@code pluginPath} and returns it, the directory to give as plugin.path. */
  static Path unzip(Path pluginPath) throws IOException {
    String archive = System.getProperty("lakesink.connect.archive");
    if (archive == null || !Files.isRegularFile(Path.of(archive))) {
      throw new IllegalStateException("The plugin archive " + archive + " was not built: run the tests with mvn verify");
    }
    Files.createDirectories(pluginPath);
    try (InputStream in = Files.newInputStream(Path.of(archive)); ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
        Path to = pluginPath.resolve(e.getName()).normalize();
        if (!to.startsWith(pluginPath)) {
          throw new IOException("entry outside the archive's folder: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(to);
        } else {
          Files.createDirectories(to.getParent());
          Files.copy(zip, to);
        }
      }
    }
    return pluginPath;
  }
}

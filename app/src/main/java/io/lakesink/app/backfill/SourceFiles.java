package io.lakesink.app.backfill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files a {@code --file} names: a path, or a glob in its last part ({@code archive/*.csv}),
 * in name order, so the same files are read in the same order by every run (what resuming
 * relies on).
 */
final class SourceFiles {
  private SourceFiles() {}

  static List<Path> expand(String pattern) {
    Path given = Path.of(pattern);
    String last = given.getFileName() == null ? "" : given.getFileName().toString();
    if (!last.contains("*") && !last.contains("?") && !last.contains("[") && !last.contains("{")) {
      if (!Files.isRegularFile(given)) {
        throw SourceErrors.noFile(pattern, false);
      }
      return List.of(given.toAbsolutePath());
    }
    Path dir = given.getParent() == null ? Path.of(".") : given.getParent();
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + last);
    List<Path> out = new ArrayList<>();
    try (Stream<Path> listed = Files.list(dir)) {
      listed.filter(p -> Files.isRegularFile(p) && matcher.matches(p.getFileName())).sorted().forEach(p -> out.add(p.toAbsolutePath()));
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + dir, e);
    }
    if (out.isEmpty()) {
      throw SourceErrors.noFile(pattern, true);
    }
    return out;
  }
}

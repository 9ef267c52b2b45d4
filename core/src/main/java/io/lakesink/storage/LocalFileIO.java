package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * Kernel's file access for a local or network (NFS) file system, on {@code java.nio}.
 *
 * <p>Why not Kernel's Hadoop file I/O: its local log store commits {@code _delta_log/N.json} as
 * "exists? then rename", which is atomic only inside one JVM; two processes sharing a directory
 * can both take a version, the later rename silently replacing the earlier commit. Here a commit
 * is published with {@code link(2)}, which fails when the name exists, in every process (see
 * {@link LocalOutputFile}). It also skips the chmod/readlink processes Hadoop's local file system
 * forks on every write.
 *
 * <p>Paths are {@code file:} URIs spelled as Kernel spells them ({@code file:/dir/name},
 * unescaped): Kernel checks that listed log files start with its own spelling of the log
 * directory. {@code file:///dir} and {@code file://localhost/dir} are accepted as input. Missing
 * files are {@link FileNotFoundException}, which Kernel treats as "no table" or "no checkpoint".
 */
public final class LocalFileIO implements FileIO {
  private final FilePublisher publisher;

  public LocalFileIO() {
    this(new FilePublisher(FilePublisher.Mode.HARD_LINK));
  }

  /** With a fixed way to publish new files; tests use it to exercise the no-hard-link fallback. */
  LocalFileIO(FilePublisher publisher) {
    this.publisher = publisher;
  }

  /** The local path of a {@code file:} URI or an absolute path. */
  static Path localPath(String path) {
    String p = path;
    if (p.startsWith("file:")) {
      p = p.substring("file:".length());
      if (p.startsWith("//")) {
        int slash = p.indexOf('/', 2);
        String authority = slash < 0 ? p.substring(2) : p.substring(2, slash);
        if (!authority.isEmpty() && !authority.equals("localhost")) {
          throw new IllegalArgumentException("not a local path (it names host '" + authority + "'): " + path);
        }
        p = slash < 0 ? "/" : p.substring(slash);
      }
    }
    if (!p.startsWith("/")) {
      throw new IllegalArgumentException("not an absolute local path or file: URI: " + path);
    }
    return Path.of(p); // drops repeated and trailing slashes; ".." is kept as written
  }

  /** The URI Kernel expects for a local path. */
  static String uri(Path path) {
    return "file:" + path;
  }

  /**
   * Files (not subdirectories) of the argument's directory whose names are ≥ its name, sorted by
   * name. A missing directory is {@link FileNotFoundException}: Kernel's "the table does not exist".
   */
  @Override
  public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
    Path from = localPath(filePath);
    Path directory = from.getParent();
    String fromName = from.getFileName().toString();
    List<FileStatus> files = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      for (Path entry : entries) {
        if (entry.getFileName().toString().compareTo(fromName) < 0) {
          continue;
        }
        BasicFileAttributes attributes;
        try {
          attributes = Files.readAttributes(entry, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue; // deleted since the directory was read, e.g. another writer's temp file
        }
        if (!attributes.isDirectory()) {
          files.add(status(entry, attributes));
        }
      }
    } catch (NoSuchFileException e) {
      throw notFound(filePath, e);
    }
    // One directory, one prefix: ordering the paths orders the names.
    files.sort(Comparator.comparing(FileStatus::getPath));
    return closeable(files.iterator());
  }

  @Override
  public FileStatus getFileStatus(String path) throws IOException {
    Path file = localPath(path);
    try {
      return status(file, Files.readAttributes(file, BasicFileAttributes.class));
    } catch (NoSuchFileException e) {
      throw notFound(path, e);
    }
  }

  /** The canonical {@code file:/…} form; like Hadoop's makeQualified, it does not check existence. */
  @Override
  public String resolvePath(String path) {
    return uri(localPath(path));
  }

  @Override
  public boolean mkdirs(String path) throws IOException {
    Files.createDirectories(localPath(path));
    return true;
  }

  @Override
  public InputFile newInputFile(String path, long fileSize) {
    return new LocalInputFile(localPath(path), path, fileSize);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new LocalOutputFile(localPath(path), path, publisher);
  }

  /** True if the file was deleted, false if there was none. Refuses directories, as Kernel asks. */
  @Override
  public boolean delete(String path) throws IOException {
    Path file = localPath(path);
    if (Files.isDirectory(file)) {
      throw new IOException("not deleting a directory: " + path);
    }
    return Files.deleteIfExists(file);
  }

  /** None: lakesink's core wraps this FileIO to supply the Parquet settings (KernelEngine). */
  @Override
  public Optional<String> getConf(String confKey) {
    return Optional.empty();
  }

  @Override
  public void copyFileAtomically(String srcPath, String destPath, boolean overwrite) throws IOException {
    Path source = localPath(srcPath);
    if (!Files.exists(source)) {
      throw new FileNotFoundException("no such file: " + srcPath);
    }
    new LocalOutputFile(localPath(destPath), destPath, publisher).writeFrom(source, overwrite);
  }

  private static CloseableIterator<FileStatus> closeable(Iterator<FileStatus> files) {
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return files.hasNext();
      }

      @Override
      public FileStatus next() {
        return files.next();
      }

      @Override
      public void close() {}
    };
  }

  private static FileStatus status(Path file, BasicFileAttributes attributes) {
    return FileStatus.of(uri(file), attributes.size(), attributes.lastModifiedTime().toMillis());
  }

  static FileNotFoundException notFound(String path, NoSuchFileException cause) {
    FileNotFoundException e = new FileNotFoundException("no such file or directory: " + path);
    e.initCause(cause);
    return e;
  }
}

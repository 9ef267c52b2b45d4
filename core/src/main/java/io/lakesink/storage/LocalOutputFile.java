package io.lakesink.storage;

import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.utils.CloseableIterator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/**
 * A file to write. Atomic writes go to a temporary file beside the target, named {@code
 * .<name>.<uuid>.tmp} so that Delta readers and vacuum ignore it, which is synced and then
 * published by {@link FilePublisher}. Every file is synced before it is reported written: a
 * commit must never reference a Parquet file a power failure could lose.
 */
final class LocalOutputFile implements OutputFile {
  private static final int BUFFER_SIZE = 64 * 1024;

  private final Path target;
  private final String uri;
  private final FilePublisher publisher;

  LocalOutputFile(Path target, String uri, FilePublisher publisher) {
    this.target = target;
    this.uri = uri;
    this.publisher = publisher;
  }

  @Override
  public String path() {
    return uri;
  }

  /**
   * Atomic: the file appears whole at close, and only if no file has the name yet (like the
   * Hadoop and Azure implementations, FileAlreadyExistsException otherwise). Not atomic: the
   * target is written in place, replacing any file (Parquet data files have unique names).
   */
  @Override
  public PositionOutputStream create(boolean atomicWrite) throws IOException {
    Files.createDirectories(target.getParent());
    if (!atomicWrite) {
      return new Output(open(target, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING), null);
    }
    Path temp = tempFile();
    return new Output(open(temp, StandardOpenOption.CREATE_NEW), temp);
  }

  /**
   * Writes the lines, each ending in a newline. Without {@code overwrite} this is a Delta commit:
   * put-if-absent, FileAlreadyExistsException when the version is taken (Kernel then rebases).
   */
  @Override
  public void writeAtomically(CloseableIterator<String> data, boolean overwrite) throws IOException {
    Path temp = tempFile();
    try {
      if (!overwrite && Files.exists(target)) {
        // Only saves writing and syncing a file that cannot win: the link decides.
        throw new FileAlreadyExistsException(uri);
      }
      Files.createDirectories(target.getParent());
      try (FileChannel channel = open(temp, StandardOpenOption.CREATE_NEW)) {
        OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_SIZE);
        while (data.hasNext()) {
          out.write(data.next().getBytes(StandardCharsets.UTF_8));
          out.write('\n');
        }
        out.flush();
        channel.force(true);
      }
      publish(temp, overwrite);
    } finally {
      try (data) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /** Copies {@code source} here with the same guarantees as {@link #writeAtomically}. */
  void writeFrom(Path source, boolean overwrite) throws IOException {
    Path temp = tempFile();
    try {
      Files.createDirectories(target.getParent());
      Files.copy(source, temp);
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      publish(temp, overwrite);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private void publish(Path temp, boolean overwrite) throws IOException {
    if (overwrite) {
      publisher.publishReplacing(temp, target);
    } else {
      publisher.publishNew(temp, target);
    }
  }

  private Path tempFile() {
    return target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
  }

  private static FileChannel open(Path file, StandardOpenOption... options) throws IOException {
    Set<StandardOpenOption> all = EnumSet.of(StandardOpenOption.WRITE, options);
    return FileChannel.open(file, all);
  }

  /** Buffered writes to a channel; close syncs it and, for an atomic write, publishes it. */
  private final class Output extends PositionOutputStream {
    private final FileChannel channel;
    private final OutputStream out;
    private final Path temp; // null when writing the target in place
    private long position;
    private boolean closed;

    Output(FileChannel channel, Path temp) {
      this.channel = channel;
      this.out = new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_SIZE);
      this.temp = temp;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      position++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      position += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        try (channel) {
          out.flush();
          channel.force(true);
        }
        if (temp != null) {
          publisher.publishNew(temp, target);
        }
      } finally {
        if (temp != null) {
          Files.deleteIfExists(temp);
        }
      }
    }
  }
}

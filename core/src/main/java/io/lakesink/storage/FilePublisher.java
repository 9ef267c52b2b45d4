package io.lakesink.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a fully written and synced temporary file its final name, in one step other processes
 * cannot interleave with: put-if-absent for new files (Delta commits), atomic replace otherwise.
 * The temporary file is always gone afterwards.
 */
final class FilePublisher {
  private static final Logger log = LoggerFactory.getLogger(FilePublisher.class);

  enum Mode {
    /**
     * {@code link(2)} the temporary file to the target: fails with EEXIST when the target exists,
     * atomically across processes and hosts on local POSIX file systems and NFS; readers see the
     * whole file or none. Falls back to {@link #CREATE_NEW} for a file the file system cannot link.
     */
    HARD_LINK,
    /**
     * {@code O_CREAT|O_EXCL}, then copy the prepared content in. Still exclusive across processes,
     * but the target exists while it is being written: a reader can see a partial file, and a
     * crash in the middle leaves a truncated one that takes the name (for a commit, the version)
     * until removed by hand. For file systems without hard links (some SMB/FUSE mounts).
     */
    CREATE_NEW
  }

  private final Mode mode;
  private final AtomicBoolean warned = new AtomicBoolean();

  FilePublisher(Mode mode) {
    this.mode = mode;
  }

  /** Publishes {@code temp} as {@code target}, or throws FileAlreadyExistsException if it exists. */
  void publishNew(Path temp, Path target) throws IOException {
    try {
      if (mode == Mode.HARD_LINK && link(temp, target)) {
        syncDirectory(target.getParent());
        return;
      }
      copyExclusive(temp, target);
      syncDirectory(target.getParent());
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Publishes {@code temp} as {@code target}, atomically replacing what is there. */
  void publishReplacing(Path temp, Path target) throws IOException {
    try {
      // rename(2): readers see the old file or the new one, never a mix.
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory(target.getParent());
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** True when linked; false when this file system cannot link (the caller falls back). */
  private boolean link(Path temp, Path target) throws IOException {
    try {
      Files.createLink(target, temp);
      return true;
    } catch (FileAlreadyExistsException | NoSuchFileException | AccessDeniedException e) {
      if (linkedAnyway(temp)) {
        return true;
      }
      throw e; // a lost race, a vanished directory, a permission problem: not about links
    } catch (FileSystemException e) {
      if (linkedAnyway(temp)) {
        return true;
      }
      cannotLink(target, e);
      return false;
    } catch (UnsupportedOperationException e) {
      cannotLink(target, e);
      return false;
    }
  }

  /**
   * Whether the link was made although link(2) reported an error. On NFS a retransmitted LINK
   * request whose first reply was lost answers EEXIST for the link it just made; the temporary
   * file's link count tells (the check open(2)'s manual recommends for lock files on NFS).
   */
  private static boolean linkedAnyway(Path temp) {
    try {
      return ((Number) Files.getAttribute(temp, "unix:nlink")).intValue() >= 2;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false; // cannot tell: keep the error link(2) reported
    }
  }

  /**
   * EPERM/EOPNOTSUPP from a file system without hard links. Decided per file, not remembered: a
   * transient error must not switch a file system that has links to the weaker mode for good.
   */
  private void cannotLink(Path target, Exception e) {
    if (warned.compareAndSet(false, true)) {
      log.warn(
          "Hard links are not available under {} ({}); new files are created with O_EXCL instead, "
              + "so a crash during a commit can leave a partial commit file",
          target.getParent(), e.toString());
    }
  }

  private static void copyExclusive(Path temp, Path target) throws IOException {
    try (FileChannel in = FileChannel.open(temp, StandardOpenOption.READ);
        FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      try {
        long size = in.size();
        for (long done = 0; done < size; ) {
          done += in.transferTo(done, size - done, out);
        }
        out.force(true);
      } catch (IOException | RuntimeException e) {
        // The name is ours (O_EXCL): leave no partial file behind to block it.
        Files.deleteIfExists(target);
        throw e;
      }
    }
  }

  /**
   * Makes the new name durable (POSIX wants the directory synced, not only the file). Best
   * effort: some file systems refuse to open or sync a directory, and the file is already
   * published; a commit lost to a power failure is re-delivered from the log's offsets.
   */
  private static void syncDirectory(Path directory) {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      log.debug("Could not sync directory {}: {}", directory, e.toString());
    }
  }
}

package io.lakesink.delta;

import static io.delta.kernel.internal.util.Utils.toCloseableIterator;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.internal.util.FileNames;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.lakesink.storage.ForwardingFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists a Delta log again when a listing caught it half-written by another process.
 *
 * <p>A directory listing is not a snapshot: on a local file system {@code readdir} walks the
 * directory in hash order, and a file created while it walks may be returned or not. With
 * several workers on one volume, a listing can then hold {@code N.crc} without {@code N.json}
 * (written just before it), or {@code N+1.json} without {@code N.json}. Kernel refuses such a
 * log ("checksum version should be less than or equal to LogSegment version", "versions must
 * be contiguous"), and the table would be quarantined for a race that was over a millisecond
 * later. Files in a Delta log are only ever created in version order, so a listing without
 * holes is a state the log really was in; this class lists again until it gets one.
 *
 * <p>A log that stays inconsistent is passed on as listed, so that Kernel reports it: a
 * missing commit is damage an operator must see, and must never be papered over by a commit
 * into the hole.
 */
final class ConsistentLogListing extends ForwardingFileIO {
  private static final Logger log = LoggerFactory.getLogger(ConsistentLogListing.class);
  /** Listings tried before giving up; a race is over long before the second one. */
  static final int MAX_LISTINGS = 5;

  ConsistentLogListing(FileIO delegate) {
    super(delegate);
  }

  @Override
  public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
    if (!inDeltaLog(filePath)) {
      return super.listFrom(filePath);
    }
    List<FileStatus> listed = list(filePath);
    for (int listing = 1; listing < MAX_LISTINGS && !isConsistent(listed); listing++) {
      log.debug("The Delta log at {} changed while it was listed; listing it again", filePath);
      listed = list(filePath);
    }
    return toCloseableIterator(listed.iterator());
  }

  private List<FileStatus> list(String filePath) throws IOException {
    List<FileStatus> files = new ArrayList<>();
    try (CloseableIterator<FileStatus> it = super.listFrom(filePath)) {
      it.forEachRemaining(files::add);
    }
    return files;
  }

  private static boolean inDeltaLog(String filePath) {
    int slash = filePath.lastIndexOf('/');
    return slash > 0 && filePath.substring(0, slash).endsWith("/_delta_log");
  }

  /**
   * Whether the commits listed are contiguous and no checksum or checkpoint is ahead of the
   * last of them. A listing without commits is taken as it is (a log read from a checkpoint
   * whose commits were cleaned up).
   */
  static boolean isConsistent(List<FileStatus> listed) {
    long lastCommit = -1;
    for (FileStatus file : listed) {
      String path = file.getPath();
      if (FileNames.isPublishedDeltaFile(path)) {
        long version = FileNames.deltaVersion(path);
        if (lastCommit >= 0 && version != lastCommit + 1) {
          return false;
        }
        lastCommit = version;
      }
    }
    if (lastCommit < 0) {
      return true;
    }
    for (FileStatus file : listed) {
      String path = file.getPath();
      if (FileNames.isChecksumFile(path) && FileNames.checksumVersion(path) > lastCommit
          || FileNames.isCheckpointFile(path) && FileNames.checkpointVersion(path) > lastCommit) {
        return false;
      }
    }
    return true;
  }
}

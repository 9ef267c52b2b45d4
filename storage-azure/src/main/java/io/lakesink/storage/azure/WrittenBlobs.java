package io.lakesink.storage.azure;

import com.azure.storage.blob.models.BlockBlobItem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What this process knows of the blobs it has just written: size, time and ETag from the write's
 * answer, and for a Parquet file its footer, still in hand when the upload closed. The Delta
 * library reads back every data file it wrote (its status, then its footer, for the file's
 * statistics) and the status of every commit it made; these are answered from here, without a
 * request: four of a changelog flush's nine requests.
 *
 * <p>Only blobs no other writer replaces are kept ({@link #replacedByNoOne}): log files written
 * only if absent (commits, checksums, checkpoints) and Parquet data files (fresh names); not
 * {@code _last_checkpoint}, which another worker may write next, nor lakesink's state files
 * (quarantine records, journals), which an operator's command may replace or delete. And only for
 * {@value #KEPT_SECONDS} seconds, the last {@value #CAPACITY} writes: a read-back follows its
 * write within the flush. A delete forgets.
 */
final class WrittenBlobs {
  static final int CAPACITY = 256;
  static final int KEPT_SECONDS = 60;
  /** A longer footer is not kept: reading it back costs the one request it did before. */
  static final int MAX_FOOTER = BlobRangeInputStream.TAIL;
  private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  /** @param footer the blob's last bytes when it is a Parquet file (footer, its length, magic), else null */
  record Written(long size, long lastModified, String etag, byte[] footer, long at) {}

  private final LongSupplier nanoClock;
  private final Map<String, Written> byName = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Written> eldest) {
      return size() > CAPACITY;
    }
  };

  WrittenBlobs(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /** A write of one blob: a PUT, or the commit of its staged blocks. */
  interface Upload {
    /** @return the service's answer, or null when it is not known (an ambiguous retry decided by reading the blob back) */
    BlockBlobItem run() throws IOException;
  }

  /**
   * Runs {@code upload} of {@code name} and notes what it answered; a failed write forgets what was
   * known of the blob (it may or may not have changed).
   *
   * @param last the content's last bytes, {@code last[0..lastLength)}: where a Parquet footer is
   */
  void upload(String name, long size, boolean overwrite, byte[] last, int lastLength, Upload upload) throws IOException {
    BlockBlobItem answer;
    try {
      answer = upload.run();
    } catch (IOException | RuntimeException e) {
      forget(name);
      throw e;
    }
    wrote(name, size, answer, overwrite, last, lastLength);
  }

  /** A write of {@code name} that completed with {@code answer} (see {@link Upload#run}). */
  synchronized void wrote(String name, long size, BlockBlobItem answer, boolean overwrite, byte[] last, int lastLength) {
    byName.remove(name);
    if (answer == null || answer.getLastModified() == null || !replacedByNoOne(name, overwrite)) {
      return;
    }
    byName.put(name, new Written(size, answer.getLastModified().toInstant().toEpochMilli(), answer.getETag(),
        parquetFooter(last, lastLength), nanoClock.getAsLong()));
  }

  /** A write of {@code name} that failed, or a delete: what was known of it no longer holds. */
  synchronized void forget(String name) {
    byName.remove(name);
  }

  synchronized Optional<Written> get(String name) {
    Written w = byName.get(name);
    if (w != null && nanoClock.getAsLong() - w.at() > KEPT_SECONDS * 1_000_000_000L) {
      byName.remove(name);
      return Optional.empty();
    }
    return Optional.ofNullable(w);
  }

  /** Whether no other writer replaces the blob: a log file written only if absent, or a data file (a fresh name). */
  static boolean replacedByNoOne(String name, boolean overwrite) {
    if (name.contains("/_delta_log/")) {
      return !overwrite;
    }
    return name.endsWith(".parquet") && !name.contains("/_lakesink/");
  }

  /** The footer, its 4-byte length and the magic, when {@code b[0..n)} ends a Parquet file whose footer it holds whole. */
  static byte[] parquetFooter(byte[] b, int n) {
    if (b == null || n < 12 || !Arrays.equals(b, n - 4, n, PARQUET_MAGIC, 0, 4)) {
      return null;
    }
    int footer = (b[n - 8] & 0xff) | (b[n - 7] & 0xff) << 8 | (b[n - 6] & 0xff) << 16 | (b[n - 5] & 0xff) << 24;
    if (footer <= 0 || footer > MAX_FOOTER || footer + 8 > n) {
      return null;
    }
    return Arrays.copyOfRange(b, n - footer - 8, n);
  }
}

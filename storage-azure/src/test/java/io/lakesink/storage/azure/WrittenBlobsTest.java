package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.azure.storage.blob.models.BlockBlobItem;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What is kept of a blob just written, and for how long. */
class WrittenBlobsTest {
  private static final OffsetDateTime AT = OffsetDateTime.of(2026, 12, 4, 21, 0, 7, 0, ZoneOffset.UTC);
  private static final BlockBlobItem ANSWER = new BlockBlobItem("\"0x8DD1\"", AT, null, false, null);

  private final AtomicLong nanos = new AtomicLong();
  private final WrittenBlobs written = new WrittenBlobs(nanos::get);

  /** Parquet's layout at a file's end: the footer, its length (4 bytes, little-endian), "PAR1". */
  static byte[] parquetLike(int dataBytes, int footerBytes) {
    byte[] file = new byte[dataBytes + footerBytes + 8];
    Arrays.fill(file, 0, dataBytes, (byte) 'd');
    Arrays.fill(file, dataBytes, dataBytes + footerBytes, (byte) 'f');
    int n = dataBytes + footerBytes;
    file[n] = (byte) footerBytes;
    file[n + 1] = (byte) (footerBytes >>> 8);
    file[n + 2] = (byte) (footerBytes >>> 16);
    file[n + 3] = (byte) (footerBytes >>> 24);
    System.arraycopy("PAR1".getBytes(StandardCharsets.US_ASCII), 0, file, n + 4, 4);
    return file;
  }

  @Test
  void keepsADataFilesStatusAndParquetFooter() {
    byte[] file = parquetLike(1000, 300);
    written.wrote("t/part-0.parquet", file.length, ANSWER, true, file, file.length);
    WrittenBlobs.Written w = written.get("t/part-0.parquet").orElseThrow();
    assertEquals(file.length, w.size());
    assertEquals(AT.toInstant().toEpochMilli(), w.lastModified());
    assertEquals("\"0x8DD1\"", w.etag());
    assertArrayEquals(Arrays.copyOfRange(file, 1000, file.length), w.footer());
  }

  @Test
  void aFooterNotWhollyInTheLastBytesOrTooLongOrNotParquetIsNotKept() {
    byte[] file = parquetLike(10, 300);
    assertNull(WrittenBlobs.parquetFooter(file, 0));
    // The last part of a multi-block upload holds only 200 bytes of it: the footer began in a block before.
    byte[] lastPart = Arrays.copyOfRange(file, file.length - 200, file.length);
    assertNull(WrittenBlobs.parquetFooter(lastPart, lastPart.length));
    byte[] longFooter = parquetLike(10, WrittenBlobs.MAX_FOOTER + 1);
    assertNull(WrittenBlobs.parquetFooter(longFooter, longFooter.length));
    byte[] json = "{\"commitInfo\":{}}\n".getBytes(StandardCharsets.UTF_8);
    assertNull(WrittenBlobs.parquetFooter(json, json.length));
    // A buffer larger than the content: only its first n bytes count.
    byte[] padded = Arrays.copyOf(file, file.length + 50);
    assertArrayEquals(Arrays.copyOfRange(file, 10, file.length), WrittenBlobs.parquetFooter(padded, file.length));
  }

  @Test
  void anOverwriteInTheLogAStateFileAnUnknownAnswerAFailureAndADeleteAreNotAnswered() {
    assertKept(false, "t/_delta_log/_last_checkpoint", true, ANSWER, "another worker may write it next");
    assertKept(false, "lakesink/_lakesink/quarantine/t.json", true, ANSWER, "an operator's release deletes it");
    assertKept(false, "lakesink/t/_lakesink/keys/part-0.parquet.keys", true, ANSWER, "not read back");
    assertKept(false, "lakesink/t/deletion_vector_0.bin", true, ANSWER, "not read back");
    assertKept(true, "lakesink/t/_delta_log/00000000000000000010.checkpoint.parquet", false, ANSWER, "written only if absent");
    assertKept(true, "t/_delta_log/00000000000000000003.json", false, ANSWER, "written only if absent: nobody replaces it");
    assertKept(false, "t/_delta_log/00000000000000000003.json", false, null, "an ambiguous retry's answer is not known");

    written.wrote("t/part-1.parquet", 10, ANSWER, true, null, 0);
    written.forget("t/part-1.parquet");
    assertTrue(written.get("t/part-1.parquet").isEmpty());
  }

  /** Writes {@code name} with {@code answer} and checks whether it is then answered from the write. */
  private void assertKept(boolean kept, String name, boolean overwrite, BlockBlobItem answer, String why) {
    written.wrote(name, 40, answer, overwrite, null, 0);
    assertEquals(kept, written.get(name).isPresent(), name + ": " + why);
  }

  @Test
  void forgetsAfterAMinuteAndBeyondTheLastWrites() {
    written.wrote("t/a.parquet", 10, ANSWER, true, null, 0);
    nanos.addAndGet(WrittenBlobs.KEPT_SECONDS * 1_000_000_000L);
    assertTrue(written.get("t/a.parquet").isPresent());
    nanos.addAndGet(1);
    assertTrue(written.get("t/a.parquet").isEmpty());

    for (int i = 0; i <= WrittenBlobs.CAPACITY; i++) {
      written.wrote("t/" + i + ".parquet", 10, ANSWER, true, null, 0);
    }
    assertTrue(written.get("t/0.parquet").isEmpty(), "the oldest of " + (WrittenBlobs.CAPACITY + 1) + " writes");
    assertTrue(written.get("t/1.parquet").isPresent());
    assertTrue(written.get("t/" + WrittenBlobs.CAPACITY + ".parquet").isPresent());
  }
}

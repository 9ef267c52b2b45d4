package io.lakesink.delta;

import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.delta.kernel.internal.deletionvectors.DeletionVectorUtils;
import io.delta.kernel.internal.deletionvectors.RoaringBitmapArray;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.zip.CRC32;
import org.roaringbitmap.RoaringBitmap;

/**
 * Writes deletion vectors as the Delta protocol stores them ("Deletion Vectors", storage type
 * {@code u}): one file {@code deletion_vector_<uuid>.bin} in the table's root per commit, holding
 * the bitmap of every file the commit deletes rows of. The file is a format version byte, then per
 * bitmap its size (4 bytes, big endian), the bitmap as a {@code RoaringBitmapArray} in the portable
 * format (magic number, bitmap count, then per 32-bit high half its key and a standard roaring
 * bitmap, little endian), and the CRC-32 of the bitmap bytes (big endian). Kernel has a reader
 * for this format but no writer; its reader is what the tests check this one against.
 *
 * <p>Until the commit that names it lands, a written file is an orphan: invisible to readers, and
 * deleted by vacuum once older than the retention.
 */
final class DeletionVectorFile {
  static final byte FORMAT_VERSION = 1;
  /** The portable {@code RoaringBitmapArray} format's magic number (Delta protocol). */
  static final int PORTABLE_MAGIC = 1681511377;
  static final String FILE_PREFIX = "deletion_vector_";

  private DeletionVectorFile() {}

  /** The file's deletion vector descriptor, or null. */
  static DeletionVectorDescriptor descriptor(TableFile file) {
    return InternalScanFileUtils.getDeletionVectorDescriptorFromRow(file.scanRow);
  }

  /** A file's current deletion vector as a bitmap of deleted positions (null without one). */
  static RoaringBitmapArray bitmap(Engine engine, String tableRoot, TableFile file) {
    DeletionVectorDescriptor dv = descriptor(file);
    return dv == null ? null : DeletionVectorUtils.loadNewDvAndBitmap(engine, tableRoot, dv)._2;
  }

  /**
   * The positions the file's current deletion vector deletes, sorted (empty without one), read
   * once per file of a snapshot: the merge that skips them also writes the file's next vector.
   */
  static long[] deletedPositions(Engine engine, String tableRoot, TableFile file) {
    long[] known = file.deletedPositions;
    if (known == null) {
      RoaringBitmapArray bitmap = bitmap(engine, tableRoot, file);
      known = bitmap == null ? new long[0] : bitmap.toArray();
      file.deletedPositions = known;
    }
    return known;
  }

  /**
   * Writes one file holding a deletion vector per entry of {@code positions} (each the sorted,
   * distinct row positions it deletes), and returns their descriptors in the same order.
   */
  static List<DeletionVectorDescriptor> write(Engine engine, String tableRoot, List<long[]> positions) {
    UUID id = UUID.randomUUID();
    String path = tableRoot + "/" + FILE_PREFIX + id + ".bin";
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(file);
    List<DeletionVectorDescriptor> descriptors = new ArrayList<>(positions.size());
    try {
      out.writeByte(FORMAT_VERSION);
      for (long[] p : positions) {
        byte[] bitmap = serialize(p);
        int offset = out.size();
        out.writeInt(bitmap.length);
        out.write(bitmap);
        CRC32 crc = new CRC32();
        crc.update(bitmap);
        out.writeInt((int) crc.getValue());
        descriptors.add(new DeletionVectorDescriptor(
            DeletionVectorDescriptor.UUID_DV_MARKER, Base85Codec.encodeUUID(id), Optional.of(offset),
            bitmap.length, p.length));
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in memory: cannot happen
    }
    store(engine, path, file.toByteArray());
    return descriptors;
  }

  /** Sorted, distinct positions as a portable {@code RoaringBitmapArray}. */
  static byte[] serialize(long[] positions) {
    TreeMap<Integer, RoaringBitmap> byHigh = new TreeMap<>();
    for (long p : positions) {
      if (p < 0) {
        throw new IllegalArgumentException("negative row position " + p);
      }
      byHigh.computeIfAbsent((int) (p >>> 32), k -> new RoaringBitmap()).add((int) p);
    }
    int size = 4 + 8;
    for (RoaringBitmap b : byHigh.values()) {
      b.runOptimize();
      size += 4 + b.serializedSizeInBytes();
    }
    ByteBuffer buffer = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putInt(PORTABLE_MAGIC);
    buffer.putLong(byHigh.size());
    for (Map.Entry<Integer, RoaringBitmap> e : byHigh.entrySet()) {
      buffer.putInt(e.getKey());
      e.getValue().serialize(buffer);
    }
    return buffer.array();
  }

  /** Writes the bytes through the storage's own file I/O: Kernel's engine writes only Parquet and JSON. */
  private static void store(Engine engine, String path, byte[] bytes) {
    if (!(engine instanceof KernelEngine.StorageEngine storage)) {
      throw new IllegalStateException("deletion vectors are written through an engine from KernelEngine.create");
    }
    try (PositionOutputStream stream = storage.fileIO().newOutputFile(path).create(true)) {
      stream.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("writing the deletion vector file " + path, e);
    }
  }
}

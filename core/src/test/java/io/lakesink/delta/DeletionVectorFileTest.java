package io.lakesink.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.deletionvectors.DeletionVectorStoredBitmap;
import io.lakesink.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our deletion vector writer against Kernel's reader (the protocol's format, read by Delta's own code). */
class DeletionVectorFileTest {
  @TempDir Path dir;

  @Test
  void severalVectorsInOneFileReadBackWithKernelsReader() throws Exception {
    LocalStorage storage = new LocalStorage(dir, "");
    Engine engine = KernelEngine.create(storage);
    String root = storage.tableLocation("t");
    Files.createDirectories(dir.resolve("t"));
    long[] small = {0, 3, 4, 5, 6, 7, 1000, 65_535, 65_536, 1 << 20};
    long[] wide = {1, 2, (1L << 32) + 7, (3L << 32) + 1}; // past 2^32: a RoaringBitmapArray of several bitmaps
    long[] run = new long[10_000];
    for (int i = 0; i < run.length; i++) {
      run[i] = 50_000 + i; // a run: stored run-length encoded
    }
    List<DeletionVectorDescriptor> written = DeletionVectorFile.write(engine, root, List.of(small, wide, run));

    assertEquals(3, written.size());
    assertEquals(Optional.of(1), written.get(0).getOffset(), "after the format version byte");
    for (DeletionVectorDescriptor d : written) {
      assertEquals("u", d.getStorageType());
      assertEquals(written.get(0).getPathOrInlineDv(), d.getPathOrInlineDv(), "one file for the commit");
    }
    assertEquals(small.length, written.get(0).getCardinality());
    assertEquals(run.length, written.get(2).getCardinality());
    assertTrue(written.get(2).getSizeInBytes() < 100, "a run is stored compactly: " + written.get(2).getSizeInBytes());
    List<long[]> expected = List.of(small, wide, run);
    for (int i = 0; i < 3; i++) {
      long[] read = new DeletionVectorStoredBitmap(written.get(i), Optional.of(root)).load(engine.getFileSystemClient()).toArray();
      assertArrayEquals(expected.get(i), read, "vector " + i);
    }
    try (Stream<Path> files = Files.list(dir.resolve("t"))) {
      List<String> names = files.map(p -> p.getFileName().toString()).toList();
      assertEquals(1, names.size(), names.toString());
      assertTrue(names.get(0).matches("deletion_vector_[0-9a-f-]{36}\\.bin"), names.get(0));
    }
  }

  @Test
  void unionIsSortedAndDistinct() {
    assertArrayEquals(new long[] {1, 2, 5, 9}, DeletionVectorUpdate.union(new long[] {9, 1, 5}, new long[] {2, 5, 1}));
  }
}

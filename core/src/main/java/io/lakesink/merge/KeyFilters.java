package io.lakesink.merge;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.lakesink.delta.DataFileSidecars;
import io.lakesink.delta.TableFile;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key filters of one table's data files ({@link KeyFilter}): a cache, never the truth. Each
 * is stored beside the table ({@link DataFileSidecars}) when a merge first reads the file's keys,
 * kept in memory (up to {@link #CACHE_BYTES}), and taken only when it says which file, which size
 * and which key columns it is for and its checksum holds; anything else (missing, truncated,
 * damaged, another file's) is as if there were none: the file is read, and its filter written
 * again. A file another engine wrote has none until a merge reads it. Storage trouble with a
 * filter never fails a merge: the file is read instead.
 */
final class KeyFilters {
  private static final Logger log = LoggerFactory.getLogger(KeyFilters.class);
  /** Filters kept in memory per table: about 6 million keys' worth. */
  static final long CACHE_BYTES = 8L << 20;

  private final FileIO io;
  private final String location;
  private final Map<String, KeyFilter> cache = new LinkedHashMap<>(16, 0.75f, true);
  private long cachedBytes;

  KeyFilters(FileIO io, String tableLocation) {
    this.io = io;
    this.location = tableLocation;
  }

  /** The file's filter for these key columns, when a trustworthy one exists. */
  Optional<KeyFilter> find(TableFile file, List<String> columns) {
    String name = DataFileSidecars.name(file.path());
    String id = name + "|" + String.join("\u0001", columns);
    synchronized (this) {
      KeyFilter cached = cache.get(id);
      if (cached != null) {
        return Optional.of(cached);
      }
    }
    String path = DataFileSidecars.keyFilter(location, file.path());
    byte[] bytes;
    try {
      long size = io.getFileStatus(path).getSize();
      try (InputStream in = io.newInputFile(path, size).newStream()) {
        bytes = in.readAllBytes();
      }
    } catch (FileNotFoundException | NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | UncheckedIOException e) {
      log.debug("Cannot read the key filter {}; the file is read instead: {}", path, e.toString());
      return Optional.empty();
    }
    Optional<KeyFilter> filter = KeyFilter.decode(bytes, name, file.size(), columns);
    if (filter.isEmpty()) {
      log.info("The key filter {} is damaged or not for this file; it is ignored and written again", path);
    }
    filter.ifPresent(f -> remember(id, f));
    return filter;
  }

  /** Stores a filter built from the file's keys; best effort. */
  void save(TableFile file, List<String> columns, KeyFilter filter) {
    String name = DataFileSidecars.name(file.path());
    String path = DataFileSidecars.keyFilter(location, file.path());
    try {
      io.mkdirs(path.substring(0, path.lastIndexOf('/')));
      try (OutputStream out = io.newOutputFile(path).create(false)) {
        out.write(filter.encode(name, file.size(), columns));
      }
    } catch (IOException | UncheckedIOException e) {
      log.debug("Cannot write the key filter {}; the file is read by the next merge too: {}", path, e.toString());
      return;
    }
    remember(name + "|" + String.join("\u0001", columns), filter);
  }

  private synchronized void remember(String id, KeyFilter filter) {
    if (filter.bytes() > CACHE_BYTES / 4 || cache.containsKey(id)) {
      return;
    }
    cache.put(id, filter);
    cachedBytes += filter.bytes();
    var oldest = cache.entrySet().iterator();
    while (cachedBytes > CACHE_BYTES && oldest.hasNext()) {
      cachedBytes -= oldest.next().getValue().bytes();
      oldest.remove();
    }
  }
}

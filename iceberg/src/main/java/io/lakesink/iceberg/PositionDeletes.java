package io.lakesink.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;

/**
 * A Delta deletion vector as an Iceberg (format v2) position-delete file: one Parquet file of
 * {@code (file_path, pos)} per data file that has a vector, written with iceberg-parquet. Delta's
 * row positions and Iceberg's are the same thing: a row's 0-based index in the Parquet file.
 *
 * <p>Where: {@code <table>/_lakesink_iceberg/deletes/}. Neither lakesink's vacuum nor Delta's
 * VACUUM deletes anything under a folder whose name starts with {@code _}; Delta readers never
 * look there. Name: {@code <key>-<uuid>.parquet}, where the key is a hash of the data file's path
 * and its vector's id. A sync knows from the names alone which vectors Iceberg already has;
 * the uuid keeps two racing syncs from writing the same name.
 */
final class PositionDeletes {
  static final String FOLDER = "_lakesink_iceberg/deletes";
  private static final int KEY_LENGTH = 32; // hex digits of SHA-256: 128 bits

  private PositionDeletes() {}

  /** Names one vector of one data file; equal keys mean the same rows deleted in the same file. */
  static String key(String dataPath, String deletionVectorId) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] digest = sha.digest((dataPath + "\n" + deletionVectorId).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, KEY_LENGTH);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** The key of a delete file this class wrote, or null for any other delete file. */
  static String keyOf(DeleteFile file) {
    String location = file.location();
    String name = location.substring(location.lastIndexOf('/') + 1);
    if (!location.contains("/" + FOLDER + "/") || name.length() <= KEY_LENGTH || name.charAt(KEY_LENGTH) != '-') {
      return null;
    }
    return name.substring(0, KEY_LENGTH);
  }

  /**
   * Writes the delete file of {@code data} that deletes {@code positions} (ascending, as Iceberg
   * requires them sorted).
   */
  static DeleteFile write(FileIO io, String tableLocation, PartitionSpec spec, DataFile data, String key, long[] positions) {
    String path = tableLocation + "/" + FOLDER + "/" + key + "-" + UUID.randomUUID() + ".parquet";
    try {
      PositionDeleteWriter<Object> writer = Parquet.writeDeletes(io.newOutputFile(path))
          .withSpec(spec)
          .withPartition(data.partition())
          .buildPositionWriter();
      PositionDelete<Object> delete = PositionDelete.create();
      try (writer) {
        for (long position : positions) {
          writer.write(delete.set(data.location(), position));
        }
      }
      return writer.toDeleteFile();
    } catch (IOException e) {
      throw new UncheckedIOException("writing the Iceberg position deletes " + path, e);
    }
  }
}

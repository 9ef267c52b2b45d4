package io.lakesink.dist.image;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A POSIX (ustar + pax) tar stream: what an OCI layer and an OCI image archive are. The JDK has
 * no tar writer, and the build needs only regular files and directories, so this is enough and
 * keeps the image build free of a dependency. Every entry has the same modification time, so the
 * same input gives the same bytes (and digests).
 */
final class TarWriter implements AutoCloseable {
  private static final int BLOCK = 512;
  private final OutputStream out;
  private final long mtime;

  TarWriter(OutputStream out, long mtimeSeconds) {
    this.out = out;
    this.mtime = mtimeSeconds;
  }

  void directory(String name, int mode, int uid, int gid) throws IOException {
    header(name.endsWith("/") ? name : name + "/", mode, uid, gid, 0, '5');
  }

  void file(String name, int mode, int uid, int gid, Path source) throws IOException {
    long size = Files.size(source);
    header(name, mode, uid, gid, size, '0');
    try (InputStream in = Files.newInputStream(source)) {
      long copied = in.transferTo(out);
      if (copied != size) {
        throw new IOException(source + " changed while it was archived");
      }
    }
    pad(size);
  }

  void file(String name, int mode, byte[] content) throws IOException {
    header(name, mode, 0, 0, content.length, '0');
    out.write(content);
    pad(content.length);
  }

  private void header(String name, int mode, int uid, int gid, long size, char type) throws IOException {
    byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
    if (nameBytes.length > 100) {
      // A pax extended header carries the long path; the ustar field holds a truncated stand-in.
      byte[] record = paxRecord("path", name);
      rawHeader("PaxHeaders/" + Integer.toHexString(name.hashCode()), 0644, 0, 0, record.length, 'x');
      out.write(record);
      pad(record.length);
    }
    rawHeader(name, mode, uid, gid, size, type);
  }

  private void rawHeader(String name, int mode, int uid, int gid, long size, char type) throws IOException {
    byte[] h = new byte[BLOCK];
    put(h, 0, 100, name.getBytes(StandardCharsets.UTF_8));
    octal(h, 100, 8, mode);
    octal(h, 108, 8, uid);
    octal(h, 116, 8, gid);
    octal(h, 124, 12, size);
    octal(h, 136, 12, mtime);
    for (int i = 148; i < 156; i++) {
      h[i] = ' '; // the checksum is computed with its own field as spaces
    }
    h[156] = (byte) type;
    put(h, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
    put(h, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
    put(h, 265, 32, (uid == 0 ? "root" : "lakesink").getBytes(StandardCharsets.US_ASCII));
    put(h, 297, 32, (gid == 0 ? "root" : "lakesink").getBytes(StandardCharsets.US_ASCII));
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    octal(h, 148, 7, sum);
    h[155] = ' ';
    out.write(h);
  }

  /** "LEN key=value\n", where LEN counts the whole record including its own digits. */
  private static byte[] paxRecord(String key, String value) {
    int body = (" " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8).length;
    int len = body + String.valueOf(body).length();
    if (String.valueOf(len).length() != String.valueOf(body).length()) {
      len++;
    }
    return (len + " " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static void put(byte[] h, int at, int width, byte[] value) {
    System.arraycopy(value, 0, h, at, Math.min(width, value.length));
  }

  private static void octal(byte[] h, int at, int width, long value) {
    String s = Long.toOctalString(value);
    if (s.length() > width - 1) {
      throw new IllegalArgumentException("Value " + value + " does not fit a tar header field");
    }
    s = "0".repeat(width - 1 - s.length()) + s;
    put(h, at, width - 1, s.getBytes(StandardCharsets.US_ASCII));
  }

  private void pad(long size) throws IOException {
    int rest = (int) (size % BLOCK);
    if (rest != 0) {
      out.write(new byte[BLOCK - rest]);
    }
  }

  /** The two zero blocks that end an archive; the stream itself stays open. */
  @Override
  public void close() throws IOException {
    out.write(new byte[2 * BLOCK]);
    out.flush();
  }
}

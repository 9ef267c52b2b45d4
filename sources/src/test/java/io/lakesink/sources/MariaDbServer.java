package io.lakesink.sources;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A private MariaDB server from the machine's Debian package ({@code mariadb-server}, installed by
 * {@code .ci/run}): its own data directory, port and socket, the binary log in the form Debezium
 * reads (row events with full images). Never the system service.
 *
 * <p>Missing binaries fail the test with what to install: a skipped source test would let the
 * MySQL path break unnoticed.
 */
final class MariaDbServer implements AutoCloseable {
  /**
   * Debezium's MySQL connector asks {@code SHOW BINARY LOG STATUS} of a server whose version reads
   * 8.x above 8.4, else {@code SHOW MASTER STATUS}; MariaDB 10.11 has only the latter. A version
   * string of 8.0 keeps the connector on the statement MariaDB has (the MariaDB connector, which
   * knows this, is not served here).
   */
  static final String REPORTED_VERSION = "8.0.99-MariaDB-10.11.19";

  /** The default redo log is 96 MiB, written out in full at creation: a test needs little. */
  private static final String SMALL_REDO_LOG = "--innodb-log-file-size=8M";

  private static final List<String> SERVER_DIRS = List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/libexec");

  private final Process process;
  private final Path dir;
  final int port;

  private MariaDbServer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  static MariaDbServer start(Path dir) throws IOException {
    Path server = find("mariadbd", "mysqld");
    Path installDb = find("mariadb-install-db", "mysql_install_db");
    Files.createDirectories(dir);
    Path data = dir.resolve("data");
    boolean root = "root".equals(System.getProperty("user.name"));
    if (root) {
      // mariadbd refuses to run as root; the package created the user mysql.
      run(List.of("chown", "-R", "mysql:mysql", dir.toString()), dir.resolve("chown.log"));
    }
    List<String> install = new ArrayList<>(List.of(installDb.toString(), "--no-defaults", "--datadir=" + data,
        "--auth-root-authentication-method=normal", "--skip-test-db", SMALL_REDO_LOG));
    if (root) {
      install.add("--user=mysql");
    }
    run(install, dir.resolve("install-db.log"));
    int port = freePort();
    List<String> cmd = new ArrayList<>(List.of(server.toString(), "--no-defaults",
        "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
        "--socket=" + dir.resolve("mariadb.sock"), "--pid-file=" + dir.resolve("mariadb.pid"),
        "--log-bin=" + dir.resolve("data/binlog"), "--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id=1",
        "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
        "--default-time-zone=+00:00", "--sql-mode=", // no strict mode: zero dates are what the test stores
        "--innodb-buffer-pool-size=64M", SMALL_REDO_LOG, "--skip-name-resolve", "--version=" + REPORTED_VERSION));
    if (root) {
      cmd.add("--user=mysql");
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    MariaDbServer s = new MariaDbServer(p, dir, port);
    s.awaitReady();
    return s;
  }

  private static Path find(String... names) {
    for (String name : names) {
      for (String d : SERVER_DIRS) {
        Path candidate = Path.of(d, name);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    throw new IllegalStateException("No MariaDB server binary (" + String.join(" or ", names) + ") in " + SERVER_DIRS
        + ": install Debian's mariadb-server (.ci/run does: apt-get install mariadb-server). The test starts its own instance;"
        + " the system service is not needed.");
  }

  private static void run(List<String> cmd, Path log) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(cmd.get(0) + " failed: " + Files.readString(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Polls until the server answers (start-up takes seconds, longer on a busy machine). */
  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("MariaDB exited at start: " + Files.readString(dir.resolve("server.log")));
      }
      try (Connection c = connect("mysql")) {
        return;
      } catch (SQLException e) {
        last = e;
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // polling a condition, not timing
      }
    }
    close();
    throw new IllegalStateException("MariaDB did not answer within 120 s: " + Files.readString(dir.resolve("server.log")), last);
  }

  String jdbcUrl(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
  }

  Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database) + "?useUnicode=true&characterEncoding=utf8", "root", "");
  }

  void execute(String database, String... statements) {
    try (Connection c = connect(database); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage() + " (in: " + String.join("; ", statements) + ")", e);
    }
  }

  @Override
  public void close() {
    process.destroy(); // SIGTERM: a clean shutdown
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

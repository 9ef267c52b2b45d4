package io.lakesink.bench.soak;

import io.lakesink.storage.azure.testing.Azurite;
import java.nio.file.Path;

/** Where one soak's tables live: a local directory, or a container on a real Azurite. */
sealed interface SoakStorage extends AutoCloseable {
  String name();

  /** The body of the workers' {@code storage:} section, indented by two. */
  String yaml();

  @Override
  void close();

  static SoakStorage open(String kind, Path dir) {
    return kind.equals("azure") ? Azure.start() : new Local(dir.resolve("tables"));
  }

  record Local(Path dir) implements SoakStorage {
    @Override
    public String name() {
      return "local";
    }

    @Override
    public String yaml() {
      return "  type: local\n  path: " + dir + "\n";
    }

    @Override
    public void close() {
      // Kept: the tables are evidence when a soak fails.
    }
  }

  /** Azurite installed and started by the storage-azure tests' harness, blobs on local disk. */
  final class Azure implements SoakStorage {
    private final Azurite azurite;
    private final String container;

    private Azure(Azurite azurite) {
      this.azurite = azurite;
      this.container = azurite.createContainer("soak"); // lakesink never creates one
    }

    static Azure start() {
      return new Azure(Azurite.start());
    }

    @Override
    public String name() {
      return "azure";
    }

    @Override
    public String yaml() {
      return "  type: azure\n  container: " + container + "\n  connection_string: \"" + azurite.connectionString() + "\"\n  allow_insecure_http: true\n"; // Azurite is plain http
    }

    @Override
    public void close() {
      azurite.close();
    }
  }
}

package io.lakesink.storage.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.TableStorage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Delta tables in an Azure Blob Storage / ADLS Gen2 container.
 *
 * <p>Readers and catalogs see {@code abfss://<container>@<account>.dfs.core.windows.net/<prefix>/
 * <table>}; the bytes go through the Blob API to {@code https://<account>.blob.core.windows.net}
 * or to storage.endpoint. The Blob API's put-if-absent works on accounts with and without
 * hierarchical namespace, so it is the one commit protocol.
 */
public final class AzureStorage implements TableStorage {
  static final String TEST_BLOB = "lakesink-test.txt";

  private final AzureTarget target;
  private final BlobContainerClient container;
  private final BlobPaths paths;
  private final AzureErrors errors;
  private final AzureFileIO fileIO;

  private AzureStorage(AzureStorageSettings settings, AzureClientOptions options) {
    this.target = AzureTarget.of(settings);
    this.container = AzureClients.container(settings, target, options);
    this.paths = new BlobPaths(target);
    this.errors = new AzureErrors(target, new Redactor(target.secrets()), options.maxTries());
    this.fileIO = new AzureFileIO(container, paths, errors);
  }

  /** Storage with the default retry schedule. No network call happens here. */
  public static AzureStorage create(AzureStorageSettings settings) {
    return create(settings, AzureClientOptions.defaults());
  }

  public static AzureStorage create(AzureStorageSettings settings, AzureClientOptions options) {
    return new AzureStorage(settings, options);
  }

  @Override
  public String tableLocation(String tableName) {
    return paths.uri(paths.tableName(tableName));
  }

  @Override
  public FileIO fileIO() {
    return fileIO;
  }

  @Override
  public String describe() {
    return "Azure container '" + target.container() + "' in storage account '" + target.account()
        + "', prefix '" + target.prefix() + "', authenticated with " + target.who()
        + (target.endpointOverridden() ? ", via endpoint " + target.serviceUrl() : "");
  }

  /** The storage account name. */
  public String account() {
    return target.account();
  }

  /** The container the tables are in. */
  public String container() {
    return target.container();
  }

  /**
   * The connection test: writes, lists, reads and deletes {@code <prefix>/lakesink-test.txt}, the
   * operations a Delta writer needs.
   *
   * @throws ConfigurationException naming what to fix: credentials, container, role, account or
   *     endpoint
   * @throws RetryableException when Azure answered 429/5xx or timed out on every try
   */
  public void checkAccess() {
    String name = paths.underPrefix(TEST_BLOB);
    String path = paths.uri(name);
    BlobClient blob = container.getBlobClient(name);
    String step = "write";
    try {
      byte[] content =
          ("lakesink connection test " + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8);
      blob.upload(BinaryData.fromBytes(content), true);
      step = "list";
      container.listBlobs(new ListBlobsOptions().setPrefix(name).setMaxResultsPerPage(1), null)
          .iterator()
          .hasNext();
      step = "read";
      blob.downloadContent();
      step = "delete";
      blob.delete();
    } catch (RuntimeException e) {
      throw errors.connectionTest(step, path, e);
    }
  }

  @Override
  public String toString() {
    return describe();
  }
}

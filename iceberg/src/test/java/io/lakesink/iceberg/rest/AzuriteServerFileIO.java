package io.lakesink.iceberg.rest;

import io.lakesink.iceberg.StorageFileIO;
import io.lakesink.storage.azure.AzureStorage;
import io.lakesink.storage.azure.AzureStorageSettings;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * The test REST server's file access when its tables are on Azurite: its JDBC catalog creates a
 * FileIO by class name ({@code io-impl}) and hands it the catalog's properties, which name the
 * container and connection string. A real catalog server uses its own Azure credentials; the
 * server only writes the metadata JSON of each commit, lakesink's client everything else.
 */
public final class AzuriteServerFileIO implements FileIO {
  public static final String CONTAINER = "lakesink.test.azurite.container";
  public static final String CONNECTION_STRING = "lakesink.test.azurite.connection-string";

  private FileIO files;
  private Map<String, String> properties = Map.of();

  public AzuriteServerFileIO() {}

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = Map.copyOf(props);
    AzureStorage storage = AzureStorage.create(
        AzureStorageSettings.connectionStringOverHttp(props.get(CONTAINER), props.get(CONNECTION_STRING)));
    this.files = new StorageFileIO(storage.fileIO());
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public InputFile newInputFile(String path) {
    return files.newInputFile(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return files.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    files.deleteFile(path);
  }
}

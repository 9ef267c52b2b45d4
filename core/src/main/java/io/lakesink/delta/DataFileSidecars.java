package io.lakesink.delta;

/**
 * Where lakesink keeps what it knows of one data file beside the table (a merge's key filter):
 * {@code <table>/_lakesink/keys/<data file name>.keys}. Delta readers and every vacuum skip names
 * starting with {@code _}; lakesink's vacuum deletes a data file's sidecar with the file.
 */
public final class DataFileSidecars {
  private DataFileSidecars() {}

  /** The key filter of the data file {@code dataFilePath} (any path ending in its name) of the table at {@code tableLocation}. */
  public static String keyFilter(String tableLocation, String dataFilePath) {
    return tableLocation + "/_lakesink/keys/" + name(dataFilePath) + ".keys";
  }

  /** A data file's name: unique in its table, whatever the directory spelling. */
  public static String name(String dataFilePath) {
    return dataFilePath.substring(dataFilePath.lastIndexOf('/') + 1);
  }
}

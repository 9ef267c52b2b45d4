package io.lakesink.connect;

import java.util.Map;

/** The documentation of the Azure and Unity Catalog keys, which are defined in a loop. */
final class KeyDocs {
  private static final Map<String, String> DOCS = Map.ofEntries(
      Map.entry("storage.container", "the existing container the tables go into (never created)."),
      Map.entry("storage.connection.string", "option A, the storage account's connection string (a secret)."),
      Map.entry("storage.account", "option B, the storage account name."),
      Map.entry("storage.tenant.id", "option B, the Entra tenant of the service principal."),
      Map.entry("storage.client.id", "option B, the service principal's application (client) id."),
      Map.entry("storage.client.secret", "option B, the service principal's client secret (a secret)."),
      Map.entry("storage.endpoint", "a blob service URL that replaces the public one (a private endpoint)."),
      Map.entry("storage.authority.host", "the Entra authority base URL, for sovereign clouds."),
      Map.entry("storage.allow.insecure.http", "allow plain http URLs: only for a local emulator such as Azurite."),
      Map.entry("catalog.workspace.url", "the Databricks workspace URL, e.g. https://adb-123.azuredatabricks.net."),
      Map.entry("catalog.client.id", "the service principal's OAuth client id."),
      Map.entry("catalog.client.secret", "the service principal's OAuth secret (a secret)."),
      Map.entry("catalog.catalog", "the existing Unity Catalog catalog the tables are registered in."),
      Map.entry("catalog.schema", "the existing schema in that catalog."),
      Map.entry("catalog.allow.unauthenticated.local.server",
          "development only: an open-source Unity Catalog server on this machine, without credentials."));

  private KeyDocs() {}

  static String of(String key) {
    return DOCS.get(key);
  }
}

package io.lakesink.storage.azure;

import io.lakesink.storage.azure.AzureStorageSettings.Auth;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the tables are and who we are, resolved once from the settings: what paths, messages and
 * the SDK clients are built from.
 *
 * @param account storage account name
 * @param container blob container
 * @param prefix folder of the tables inside the container ("" for the container root)
 * @param endpointSuffix DNS suffix of the account's endpoints, {@code core.windows.net} on public Azure
 * @param serviceUrl blob service URL every request goes to (storage.endpoint when set)
 * @param endpointOverridden whether serviceUrl comes from storage.endpoint
 * @param auth authentication option
 * @param credential what authenticates, for messages: "account key", "SAS token", "service principal"
 * @param clientId service principal client id, or null
 * @param tenantId service principal tenant, or null
 * @param authorityHost Entra authority the token comes from, or null
 * @param secrets values that must never appear in a message
 */
record AzureTarget(
    String account,
    String container,
    String prefix,
    String endpointSuffix,
    String serviceUrl,
    boolean endpointOverridden,
    Auth auth,
    String credential,
    String clientId,
    String tenantId,
    String authorityHost,
    List<String> secrets) {

  static AzureTarget of(AzureStorageSettings settings) {
    if (settings.auth() == Auth.CONNECTION_STRING) {
      ConnectionString cs = ConnectionString.parse(settings.connectionString());
      List<String> secrets = new ArrayList<>(cs.secrets());
      secrets.add(settings.connectionString());
      return new AzureTarget(
          cs.account(),
          settings.container(),
          settings.prefix(),
          cs.endpointSuffix(),
          settings.endpoint() != null ? settings.endpoint() : cs.serviceUrl(),
          settings.endpoint() != null,
          Auth.CONNECTION_STRING,
          cs.credentialKind(),
          null,
          null,
          null,
          List.copyOf(secrets));
    }
    String publicUrl = "https://" + settings.account() + ".blob." + ConnectionString.PUBLIC_SUFFIX;
    return new AzureTarget(
        settings.account(),
        settings.container(),
        settings.prefix(),
        ConnectionString.PUBLIC_SUFFIX,
        settings.endpoint() != null ? settings.endpoint() : publicUrl,
        settings.endpoint() != null,
        Auth.SERVICE_PRINCIPAL,
        "service principal",
        settings.clientId(),
        settings.tenantId(),
        settings.authorityHost() != null ? settings.authorityHost() : "https://login.microsoftonline.com",
        List.of(settings.clientSecret()));
  }

  /** Host of the table locations readers and catalogs see: {@code <account>.dfs.<suffix>}. */
  String dfsHost() {
    return account + ".dfs." + endpointSuffix;
  }

  /** Short, secret-free description of the credential, e.g. "service principal 1234-…". */
  String who() {
    return auth == Auth.SERVICE_PRINCIPAL
        ? "service principal " + clientId + " (tenant " + tenantId + ")"
        : "the " + credential + " of storage.connection_string";
  }

  @Override
  public String toString() {
    return "AzureTarget[account=" + account + ", container=" + container + ", prefix=" + prefix
        + ", serviceUrl=" + serviceUrl + ", credential=" + credential + "]";
  }
}

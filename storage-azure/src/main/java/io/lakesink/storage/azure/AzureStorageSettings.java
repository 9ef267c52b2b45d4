package io.lakesink.storage.azure;

import io.lakesink.error.ConfigurationException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code storage:} section for {@code type: azure}. Two ways to authenticate: a connection
 * string (Option A) or a service principal (Option B: account, tenant, client id and secret).
 * Validation happens here, before any network call, and every message names the key to change.
 *
 * @param container existing container the tables go into ({@code storage.container}); never created
 * @param prefix folder inside the container that holds the tables; default {@code lakesink}
 * @param connectionString Option A ({@code storage.connection_string})
 * @param account Option B storage account name ({@code storage.account})
 * @param tenantId Option B Entra tenant ({@code storage.tenant_id})
 * @param clientId Option B application (client) id ({@code storage.client_id})
 * @param clientSecret Option B client secret ({@code storage.client_secret})
 * @param endpoint blob service URL that replaces the public one, e.g. a private endpoint
 *     ({@code storage.endpoint}); authentication is unchanged
 * @param authorityHost Entra authority base URL ({@code storage.authority_host}); for sovereign
 *     clouds and tests
 * @param allowInsecureHttp whether a connection string or endpoint may use plain http ({@code
 *     storage.allow_insecure_http}); only for a local emulator such as Azurite
 */
public record AzureStorageSettings(
    String container,
    String prefix,
    String connectionString,
    String account,
    String tenantId,
    String clientId,
    String clientSecret,
    String endpoint,
    String authorityHost,
    boolean allowInsecureHttp) {

  public static final String DEFAULT_PREFIX = "lakesink";

  /** How lakesink authenticates to the storage account. */
  public enum Auth {
    CONNECTION_STRING,
    SERVICE_PRINCIPAL
  }

  private static final Pattern CONTAINER = Pattern.compile("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]");
  private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
  private static final Pattern GUID =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.-]*");
  private static final Set<String> CONFIG_KEYS =
      Set.of(
          "type", "container", "prefix", "connection_string", "account", "tenant_id", "client_id",
          "client_secret", "endpoint", "authority_host", "allow_insecure_http");

  public AzureStorageSettings {
    container = trimToNull(container);
    prefix = normalizePrefix(prefix);
    connectionString = trimToNull(connectionString);
    account = trimToNull(account);
    tenantId = trimToNull(tenantId);
    clientId = trimToNull(clientId);
    clientSecret = trimToNull(clientSecret);
    endpoint = stripTrailingSlash(trimToNull(endpoint));
    authorityHost = stripTrailingSlash(trimToNull(authorityHost));
    validate(container, connectionString, account, tenantId, clientId, clientSecret, endpoint, authorityHost);
    if (!allowInsecureHttp) {
      refusePlainHttp(connectionString, endpoint);
    }
  }

  /** Without {@code storage.allow_insecure_http}: every URL must be https. */
  public AzureStorageSettings(
      String container,
      String prefix,
      String connectionString,
      String account,
      String tenantId,
      String clientId,
      String clientSecret,
      String endpoint,
      String authorityHost) {
    this(container, prefix, connectionString, account, tenantId, clientId, clientSecret, endpoint, authorityHost, false);
  }

  /** Option A: a connection string from Azure Portal → Storage account → Access keys. */
  public static AzureStorageSettings connectionString(String container, String connectionString) {
    return new AzureStorageSettings(container, null, connectionString, null, null, null, null, null, null);
  }

  /**
   * Option A over plain http, as {@code storage.allow_insecure_http: true} allows: only for a
   * local emulator such as Azurite.
   */
  public static AzureStorageSettings connectionStringOverHttp(String container, String connectionString) {
    return new AzureStorageSettings(container, null, connectionString, null, null, null, null, null, null, true);
  }

  /** Option B: a service principal with the Storage Blob Data Contributor role. */
  public static AzureStorageSettings servicePrincipal(
      String container, String account, String tenantId, String clientId, String clientSecret) {
    return new AzureStorageSettings(
        container, null, null, account, tenantId, clientId, clientSecret, null, null);
  }

  /**
   * Reads the keys of the {@code storage:} section as a user writes them ({@code container},
   * {@code connection_string}, {@code tenant_id}, …). Unknown keys are refused so that a typo
   * does not silently fall back to a default.
   */
  public static AzureStorageSettings fromConfig(Map<String, ?> storage) {
    for (String key : storage.keySet()) {
      if (!CONFIG_KEYS.contains(key)) {
        throw new ConfigurationException(
            "storage." + key + " is not a setting of storage type azure; known keys: "
                + String.join(", ", CONFIG_KEYS.stream().sorted().toList()));
      }
    }
    Object type = storage.get("type");
    if (type != null && !"azure".equals(String.valueOf(type).trim())) {
      throw new ConfigurationException("storage.type must be azure for these settings, not " + type);
    }
    return new AzureStorageSettings(
        text(storage, "container"),
        text(storage, "prefix"),
        text(storage, "connection_string"),
        text(storage, "account"),
        text(storage, "tenant_id"),
        text(storage, "client_id"),
        text(storage, "client_secret"),
        text(storage, "endpoint"),
        text(storage, "authority_host"),
        flag(storage, "allow_insecure_http"));
  }

  public AzureStorageSettings withPrefix(String newPrefix) {
    return new AzureStorageSettings(
        container, newPrefix, connectionString, account, tenantId, clientId, clientSecret, endpoint,
        authorityHost, allowInsecureHttp);
  }

  public AzureStorageSettings withEndpoint(String newEndpoint) {
    return new AzureStorageSettings(
        container, prefix, connectionString, account, tenantId, clientId, clientSecret, newEndpoint,
        authorityHost, allowInsecureHttp);
  }

  public AzureStorageSettings withAuthorityHost(String newAuthorityHost) {
    return new AzureStorageSettings(
        container, prefix, connectionString, account, tenantId, clientId, clientSecret, endpoint,
        newAuthorityHost, allowInsecureHttp);
  }

  public Auth auth() {
    return connectionString != null ? Auth.CONNECTION_STRING : Auth.SERVICE_PRINCIPAL;
  }

  /** The storage account name, from {@code storage.account} or the connection string. */
  public String accountName() {
    return connectionString != null ? ConnectionString.parse(connectionString).account() : account;
  }

  /** No secret: the connection string and the client secret are shown as set or not. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("AzureStorageSettings[container=").append(container);
    s.append(", prefix=").append(prefix);
    if (connectionString != null) {
      s.append(", connection_string=<set, account ").append(accountName()).append('>');
    } else {
      s.append(", account=").append(account).append(", tenant_id=").append(tenantId);
      s.append(", client_id=").append(clientId).append(", client_secret=<set>");
    }
    if (endpoint != null) {
      s.append(", endpoint=").append(endpoint);
    }
    if (authorityHost != null) {
      s.append(", authority_host=").append(authorityHost);
    }
    if (allowInsecureHttp) {
      s.append(", allow_insecure_http=true");
    }
    return s.append(']').toString();
  }

  private static void validate(
      String container,
      String connectionString,
      String account,
      String tenantId,
      String clientId,
      String clientSecret,
      String endpoint,
      String authorityHost) {
    if (container == null) {
      throw new ConfigurationException(
          "storage.container is required: name an existing blob container (lakesink never creates"
              + " one).");
    }
    if (!CONTAINER.matcher(container).matches()) {
      throw new ConfigurationException(
          "storage.container '" + container + "' is not a valid container name: use 3 to 63"
              + " lowercase letters, digits and single hyphens, starting and ending with a letter or"
              + " digit.");
    }
    List<String> spnKeys = new ArrayList<>();
    if (account != null) spnKeys.add("storage.account");
    if (tenantId != null) spnKeys.add("storage.tenant_id");
    if (clientId != null) spnKeys.add("storage.client_id");
    if (clientSecret != null) spnKeys.add("storage.client_secret");

    String accountName;
    boolean servicePrincipal;
    if (connectionString != null) {
      // storage.account may repeat the connection string's account; the other keys are Option B.
      List<String> conflicting = spnKeys.stream().filter(k -> !k.equals("storage.account")).toList();
      if (!conflicting.isEmpty()) {
        throw new ConfigurationException(
            "storage.connection_string (Option A) cannot be combined with "
                + String.join(", ", conflicting)
                + " (Option B, service principal): keep one of the two options.");
      }
      accountName = ConnectionString.parse(connectionString).account();
      if (account != null && !account.equals(accountName)) {
        throw new ConfigurationException(
            "storage.account '" + account + "' differs from the account '" + accountName
                + "' of storage.connection_string: remove storage.account or fix one of them.");
      }
      servicePrincipal = false;
    } else {
      if (spnKeys.isEmpty()) {
        throw new ConfigurationException(
            "Azure storage needs credentials: set storage.connection_string (Option A), or"
                + " storage.account, storage.tenant_id, storage.client_id and storage.client_secret"
                + " (Option B, service principal).");
      }
      List<String> missing = new ArrayList<>();
      for (String key :
          List.of("storage.account", "storage.tenant_id", "storage.client_id", "storage.client_secret")) {
        if (!spnKeys.contains(key)) missing.add(key);
      }
      if (!missing.isEmpty()) {
        throw new ConfigurationException(
            "A service principal (Option B) also needs " + String.join(", ", missing)
                + "; or use storage.connection_string (Option A) instead.");
      }
      validateServicePrincipal(account, tenantId, clientId);
      accountName = account;
      servicePrincipal = true;
    }
    if (endpoint != null) {
      validateEndpoint(endpoint, accountName, servicePrincipal);
    }
    if (authorityHost != null) {
      if (!servicePrincipal) {
        throw new ConfigurationException(
            "storage.authority_host only applies to a service principal (Option B); remove it.");
      }
      URI uri = parseUrl(authorityHost, "storage.authority_host");
      if (!"https".equals(uri.getScheme())) {
        throw new ConfigurationException(
            "storage.authority_host must be an https URL, e.g. https://login.microsoftonline.com");
      }
    }
  }

  private static void validateServicePrincipal(String account, String tenantId, String clientId) {
    if (!ACCOUNT.matcher(account).matches()) {
      throw new ConfigurationException(
          "storage.account '" + account + "' is not a storage account name: 3 to 24 lowercase"
              + " letters and digits, as in <account>.blob.core.windows.net.");
    }
    if (!TENANT.matcher(tenantId).matches()) {
      throw new ConfigurationException(
          "storage.tenant_id must be the directory (tenant) ID, a GUID from Azure Portal →"
              + " Microsoft Entra ID → Overview, or the tenant's domain name.");
    }
    if (!GUID.matcher(clientId).matches()) {
      throw new ConfigurationException(
          "storage.client_id must be the application (client) ID, a GUID such as"
              + " 00000000-0000-0000-0000-000000000000 (Azure Portal → App registrations →"
              + " Overview).");
    }
  }

  /**
   * The Blob SDK treats a URL with an explicit port as path-style (emulator form, account name
   * as first path segment) and drops any path of a URL without a port. Refuse the shapes that
   * would silently send requests elsewhere.
   */
  private static void validateEndpoint(String endpoint, String accountName, boolean bearer) {
    URI uri = parseUrl(endpoint, "storage.endpoint");
    String scheme = uri.getScheme();
    if (!"https".equals(scheme) && !"http".equals(scheme)) {
      throw new ConfigurationException(
          "storage.endpoint must be an http or https URL, e.g."
              + " https://<account>.privatelink.blob.core.windows.net");
    }
    if (bearer && !"https".equals(scheme)) {
      throw new ConfigurationException(
          "storage.endpoint must use https with a service principal: Azure never sends access"
              + " tokens over plain http.");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
      throw new ConfigurationException(
          "storage.endpoint must be a plain service URL without query, fragment or user info;"
              + " credentials belong in storage.connection_string.");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("^/+", "");
    if (uri.getPort() == -1 && !path.isEmpty()) {
      throw new ConfigurationException(
          "storage.endpoint must be the blob service root, e.g."
              + " https://<account>.privatelink.blob.core.windows.net, without a path.");
    }
    if (uri.getPort() != -1 && !path.equals(accountName)) {
      throw new ConfigurationException(
          "storage.endpoint has a port, so it is used path-style and must end with the account"
              + " name: " + uri.getScheme() + "://" + uri.getAuthority() + "/" + accountName);
    }
  }

  /**
   * An account key signs requests without being sent, but over plain http the data, and a SAS
   * token (sent with every request), travel readable by anyone on the path. Only a local
   * emulator may do that, and only when the user says so.
   */
  private static void refusePlainHttp(String connectionString, String endpoint) {
    if (connectionString != null) {
      ConnectionString cs = ConnectionString.parse(connectionString);
      String why = null;
      if (cs.developmentStorage()) {
        why = "UseDevelopmentStorage=true, the local emulator at " + ConnectionString.DEV_BLOB_ENDPOINT;
      } else if ("http".equalsIgnoreCase(cs.protocol().trim())) {
        why = "DefaultEndpointsProtocol=http";
      } else if (cs.blobEndpoint() != null && cs.blobEndpoint().trim().toLowerCase(java.util.Locale.ROOT).startsWith("http:")) {
        why = "its BlobEndpoint is an http URL";
      }
      if (why != null) {
        throw new ConfigurationException(
            "storage.connection_string uses plain http (" + why + "), which sends the data and any SAS"
                + " token unencrypted: use https (DefaultEndpointsProtocol=https, an https BlobEndpoint),"
                + " or set storage.allow_insecure_http: true for a local emulator such as Azurite.");
      }
    }
    if (endpoint != null && endpoint.toLowerCase(java.util.Locale.ROOT).startsWith("http:")) {
      throw new ConfigurationException(
          "storage.endpoint is a plain http URL, which sends the data and any SAS token unencrypted:"
              + " use https, or set storage.allow_insecure_http: true for a local emulator such as"
              + " Azurite.");
    }
  }

  private static boolean flag(Map<String, ?> map, String key) {
    Object value = map.get(key);
    if (value == null || value instanceof Boolean) {
      return Boolean.TRUE.equals(value);
    }
    String v = String.valueOf(value).trim();
    if (!v.equals("true") && !v.equals("false")) {
      throw new ConfigurationException("storage." + key + " must be true or false, not '" + v + "'.");
    }
    return Boolean.parseBoolean(v);
  }

  private static URI parseUrl(String value, String key) {
    try {
      URI uri = new URI(value);
      if (uri.getHost() == null) {
        throw new ConfigurationException(key + " '" + value + "' is not an absolute URL with a host.");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new ConfigurationException(key + " '" + value + "' is not a valid URL: " + e.getReason());
    }
  }

  private static String normalizePrefix(String prefix) {
    if (prefix == null) {
      return DEFAULT_PREFIX;
    }
    String p = prefix.trim().replaceAll("^/+|/+$", "");
    for (String segment : p.split("/", -1)) {
      if (p.isEmpty()) break;
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.contains("\\")) {
        throw new ConfigurationException(
            "storage.prefix '" + prefix + "' must be a folder path such as lakesink or"
                + " teams/sales, without empty, '.' or '..' segments.");
      }
    }
    return p;
  }

  private static String text(Map<String, ?> map, String key) {
    Object value = map.get(key);
    return value == null ? null : String.valueOf(value);
  }

  private static String trimToNull(String s) {
    if (s == null) return null;
    String t = s.trim();
    return t.isEmpty() ? null : t;
  }

  private static String stripTrailingSlash(String s) {
    return s == null ? null : s.replaceAll("/+$", "");
  }
}

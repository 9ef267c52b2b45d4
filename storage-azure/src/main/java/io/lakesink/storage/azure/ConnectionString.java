package io.lakesink.storage.azure;

import com.azure.storage.blob.BlobUrlParts;
import io.lakesink.error.ConfigurationException;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The parts of an Azure Storage connection string lakesink needs to know about itself (account
 * name, endpoint suffix, secrets to redact). The SDK parses it again to authenticate. Error
 * messages never echo the string: it carries the account key or a SAS token.
 */
record ConnectionString(
    String accountName,
    String accountKey,
    String sharedAccessSignature,
    String blobEndpoint,
    String endpointSuffix,
    String protocol,
    boolean developmentStorage) {

  static final String DEV_ACCOUNT = "devstoreaccount1";
  static final String DEV_BLOB_ENDPOINT = "http://127.0.0.1:10000/" + DEV_ACCOUNT;
  static final String PUBLIC_SUFFIX = "core.windows.net";

  static ConnectionString parse(String raw) {
    Map<String, String> parts = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (String pair : raw.split(";")) {
      if (pair.isBlank()) continue;
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new ConfigurationException(
            "storage.connection_string is not a connection string: expected key=value pairs"
                + " separated by ';', such as DefaultEndpointsProtocol=https;AccountName=<account>;"
                + "AccountKey=<key>;EndpointSuffix=core.windows.net");
      }
      // Values are base64 or SAS tokens and may contain '=': split at the first one only.
      parts.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    boolean dev = "true".equalsIgnoreCase(parts.get("UseDevelopmentStorage"));
    ConnectionString cs =
        new ConnectionString(
            dev ? DEV_ACCOUNT : parts.get("AccountName"),
            parts.get("AccountKey"),
            parts.get("SharedAccessSignature"),
            parts.get("BlobEndpoint"),
            parts.getOrDefault("EndpointSuffix", PUBLIC_SUFFIX),
            parts.getOrDefault("DefaultEndpointsProtocol", "https"),
            dev);
    cs.validate();
    return cs;
  }

  private void validate() {
    if (developmentStorage) {
      return;
    }
    if (accountKey == null && sharedAccessSignature == null) {
      throw new ConfigurationException(
          "storage.connection_string has neither AccountKey nor SharedAccessSignature: copy the"
              + " full connection string from Azure Portal → Storage account → Access keys.");
    }
    if (accountKey != null) {
      try {
        Base64.getDecoder().decode(accountKey);
      } catch (IllegalArgumentException e) {
        throw new ConfigurationException(
            "storage.connection_string has an AccountKey that is not valid base64: copy the whole"
                + " key, including any trailing '=' characters.");
      }
      if (accountName == null) {
        throw new ConfigurationException(
            "storage.connection_string has an AccountKey but no AccountName: add"
                + " AccountName=<account>.");
      }
    }
    if (account() == null) {
      throw new ConfigurationException(
          "storage.connection_string does not name the storage account: add AccountName=<account>"
              + " or BlobEndpoint=https://<account>.blob.core.windows.net");
    }
  }

  /** The storage account name, from AccountName or else from BlobEndpoint. */
  String account() {
    if (accountName != null) {
      return accountName;
    }
    if (blobEndpoint == null) {
      return null;
    }
    try {
      String name = BlobUrlParts.parse(new URL(blobEndpoint)).getAccountName();
      return name == null || name.isEmpty() ? null : name;
    } catch (MalformedURLException | IllegalArgumentException e) {
      throw new ConfigurationException(
          "storage.connection_string has a BlobEndpoint that is not a URL.");
    }
  }

  /** The blob service URL requests go to when no storage.endpoint overrides it. */
  String serviceUrl() {
    if (blobEndpoint != null) {
      // A query here could be a SAS: the service URL appears in messages, so drop it (the SDK
      // still gets the full connection string).
      return blobEndpoint.replaceAll("\\?.*$", "").replaceAll("/+$", "");
    }
    if (developmentStorage) {
      return DEV_BLOB_ENDPOINT;
    }
    return protocol + "://" + accountName + ".blob." + endpointSuffix;
  }

  /** What authenticates requests, for messages: "account key" or "SAS token". */
  String credentialKind() {
    return accountKey != null || developmentStorage ? "account key" : "SAS token";
  }

  /** Values that must never appear in a message or log. */
  List<String> secrets() {
    List<String> secrets = new ArrayList<>();
    if (accountKey != null) secrets.add(accountKey);
    if (sharedAccessSignature != null) {
      secrets.add(sharedAccessSignature);
      for (String param : sharedAccessSignature.replaceFirst("^\\?", "").split("&")) {
        if (param.startsWith("sig=")) secrets.add(param.substring(4));
      }
    }
    return secrets;
  }

  @Override
  public String toString() {
    return "ConnectionString[account=" + account() + ", credential=" + credentialKind() + "]";
  }
}

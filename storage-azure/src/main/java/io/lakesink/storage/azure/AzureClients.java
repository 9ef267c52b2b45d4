package io.lakesink.storage.azure;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.policy.HttpLogDetailLevel;
import com.azure.core.http.policy.HttpLogOptions;
import com.azure.identity.ClientSecretCredentialBuilder;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.lakesink.error.ConfigurationException;
import io.lakesink.storage.azure.AzureStorageSettings.Auth;

/** Builds the Blob SDK client for the configured container; nothing else talks to the SDK builders. */
final class AzureClients {
  private AzureClients() {}

  static BlobContainerClient container(
      AzureStorageSettings settings, AzureTarget target, AzureClientOptions options) {
    BlobServiceClientBuilder builder =
        new BlobServiceClientBuilder()
            // Explicit, so the schedule does not change with SDK defaults. Retries 429, 500, 503,
            // I/O errors and per-try timeouts; 4xx answers are final.
            .retryOptions(
                new RequestRetryOptions(
                    RetryPolicyType.EXPONENTIAL,
                    options.maxTries(),
                    options.tryTimeout(),
                    options.retryDelay(),
                    options.maxRetryDelay(),
                    null))
            .addPolicy(new AttemptCounter())
            // Request logs could carry SAS query parameters: keep them off whatever the
            // environment (AZURE_HTTP_LOG_DETAIL_LEVEL) says.
            .httpLogOptions(new HttpLogOptions().setLogLevel(HttpLogDetailLevel.NONE));
    if (options.httpClient() != null) {
      builder.httpClient(options.httpClient());
    }
    try {
      if (settings.auth() == Auth.CONNECTION_STRING) {
        builder.connectionString(settings.connectionString());
      } else {
        builder.credential(credential(settings, options)).endpoint(target.serviceUrl());
      }
      if (settings.endpoint() != null) {
        // After connectionString(): replaces its endpoint, keeps its credential.
        builder.endpoint(settings.endpoint());
      }
      return builder.buildClient().getBlobContainerClient(settings.container());
    } catch (IllegalArgumentException e) {
      // SDK parse errors may quote the connection string: only a redacted text is shown.
      throw new ConfigurationException(
          "The Azure SDK refused the storage settings for account '" + target.account()
              + "' (" + new Redactor(target.secrets()).redact(e.getMessage())
              + "): check storage.connection_string and storage.endpoint.");
    }
  }

  private static TokenCredential credential(AzureStorageSettings settings, AzureClientOptions options) {
    ClientSecretCredentialBuilder builder =
        new ClientSecretCredentialBuilder()
            .tenantId(settings.tenantId())
            .clientId(settings.clientId())
            .clientSecret(settings.clientSecret());
    if (settings.authorityHost() != null) {
      // A non-default authority (sovereign cloud, test token endpoint) is not in Microsoft's
      // instance discovery list.
      builder.authorityHost(settings.authorityHost()).disableInstanceDiscovery();
    }
    if (options.httpClient() != null) {
      builder.httpClient(options.httpClient());
    }
    return builder.build();
  }
}

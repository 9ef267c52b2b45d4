package io.lakesink.storage.azure;

import io.lakesink.storage.azure.testing.Azurite;
import io.lakesink.storage.azure.testing.RecordingProxy;
import java.time.Duration;

/** Storages on Azurite with a short retry schedule, so failure tests finish quickly. */
final class TestStorages {
  private TestStorages() {}

  static AzureClientOptions fastRetries() {
    return AzureClientOptions.defaults()
        .withRetries(3, Duration.ofMillis(20), Duration.ofMillis(200))
        .withTryTimeout(Duration.ofSeconds(30));
  }

  static AzureStorage onAzurite(Azurite azurite, String container) {
    return AzureStorage.create(
        AzureStorageSettings.connectionStringOverHttp(container, azurite.connectionString()), fastRetries());
  }

  /** A storage on Azurite whose requests go through {@code proxy} (a private endpoint, as the settings see it). */
  static AzureStorage viaProxy(Azurite azurite, String container, RecordingProxy proxy) {
    return AzureStorage.create(
        AzureStorageSettings.connectionStringOverHttp(container, azurite.connectionString())
            .withEndpoint(proxy.url() + "/" + Azurite.ACCOUNT),
        fastRetries());
  }

  /** Every message in the cause chain, for "no secret anywhere" assertions. */
  static String allMessages(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      s.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
      for (Throwable suppressed : c.getSuppressed()) {
        s.append("suppressed ").append(allMessages(suppressed));
      }
    }
    return s.toString();
  }
}

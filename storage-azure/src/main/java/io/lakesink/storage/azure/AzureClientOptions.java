package io.lakesink.storage.azure;

import com.azure.core.http.HttpClient;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Azure SDK talks to the network: the retry schedule for transient failures (429, 500,
 * 503, I/O errors, timeouts) and, optionally, the HTTP client. Not part of the user's
 * configuration; tests shorten the retries and bring an HTTP client that trusts their TLS
 * certificate.
 *
 * <p>The schedule is exponential: the n-th retry waits {@code (2^(n-1) - 1) × retryDelay}, capped at
 * {@code maxRetryDelay}. With the defaults, a request gives up after 6 tries and about 30 s.
 *
 * @param maxTries attempts per request, including the first
 * @param tryTimeout limit for one attempt
 * @param retryDelay base delay of the exponential backoff
 * @param maxRetryDelay cap of one backoff delay
 * @param httpClient HTTP client for storage and token requests; null for the SDK's default
 */
public record AzureClientOptions(
    int maxTries, Duration tryTimeout, Duration retryDelay, Duration maxRetryDelay, HttpClient httpClient) {

  public AzureClientOptions {
    if (maxTries < 1) {
      throw new IllegalArgumentException("maxTries must be at least 1");
    }
    Objects.requireNonNull(tryTimeout, "tryTimeout");
    Objects.requireNonNull(retryDelay, "retryDelay");
    Objects.requireNonNull(maxRetryDelay, "maxRetryDelay");
  }

  public static AzureClientOptions defaults() {
    return new AzureClientOptions(
        6, Duration.ofSeconds(120), Duration.ofMillis(500), Duration.ofSeconds(30), null);
  }

  public AzureClientOptions withRetries(int newMaxTries, Duration newRetryDelay, Duration newMaxRetryDelay) {
    return new AzureClientOptions(newMaxTries, tryTimeout, newRetryDelay, newMaxRetryDelay, httpClient);
  }

  public AzureClientOptions withTryTimeout(Duration newTryTimeout) {
    return new AzureClientOptions(maxTries, newTryTimeout, retryDelay, maxRetryDelay, httpClient);
  }

  public AzureClientOptions withHttpClient(HttpClient newHttpClient) {
    return new AzureClientOptions(maxTries, tryTimeout, retryDelay, maxRetryDelay, newHttpClient);
  }
}

package io.lakesink.catalog.unity;

import io.lakesink.retry.RetryPolicy;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one request, waiting out throttling (429) and unavailability (502/503/504, connection
 * failures) as the shared {@link RetryPolicy} says. Everything else goes back to the caller to interpret. The
 * request is rebuilt for every attempt so that a retry after a long wait carries a fresh token.
 */
final class HttpSender {
  private static final Logger LOG = LoggerFactory.getLogger(HttpSender.class);
  private static final Set<Integer> RETRIED = Set.of(429, 502, 503, 504);

  /** From 1 s up to 60 s with 25 % jitter, 8 attempts: about three minutes of backoff in all. */
  static final RetryPolicy POLICY = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(60), 8, 0.25);
  /** A longer Retry-After is not waited out in-line: the caller retries the registration later. */
  static final Duration LONGEST_RETRY_AFTER = Duration.ofMinutes(5);

  private final HttpClient client;
  private final ClientEnvironment environment;
  private final Redactor redactor;

  HttpSender(HttpClient client, ClientEnvironment environment, Redactor redactor) {
    this.client = client;
    this.environment = environment;
    this.redactor = redactor;
  }

  /**
   * @param what the operation, for logs and messages, e.g. {@code GET /catalogs/main}
   */
  HttpReply send(Supplier<HttpRequest> request, String what) {
    for (int attempt = 1; ; attempt++) {
      HttpReply reply;
      try {
        HttpResponse<String> response = client.send(request.get(), HttpResponse.BodyHandlers.ofString());
        reply = new HttpReply(response.statusCode(), response.body(), response.headers().firstValue("Retry-After"));
      } catch (IOException e) {
        if (!POLICY.mayRetryAfter(attempt)) {
          throw UnityErrors.unreachable(what, attempt, redactor.scrub(String.valueOf(e)), e);
        }
        Duration wait = POLICY.delay(attempt, environment.random());
        LOG.warn("{} failed ({}); retry {} of {} in {} ms", what, redactor.scrub(String.valueOf(e)), attempt,
            POLICY.maxAttempts() - 1, wait.toMillis());
        pause(wait, what);
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw UnityErrors.interrupted(what, e);
      }
      if (!RETRIED.contains(reply.status())) {
        return reply;
      }
      ApiError error = ApiError.parse(reply.status(), reply.body(), redactor);
      if (!POLICY.mayRetryAfter(attempt)) {
        throw UnityErrors.stillUnavailable(what, attempt, error);
      }
      Duration wait = POLICY.delay(attempt, reply.retryAfter(), environment.clock(), environment.random());
      if (wait.compareTo(LONGEST_RETRY_AFTER) > 0) {
        throw UnityErrors.retryMuchLater(what, wait, error);
      }
      LOG.warn("{} answered {}; retry {} of {} in {} ms{}", what, error.summary(), attempt,
          POLICY.maxAttempts() - 1, wait.toMillis(), reply.retryAfter().isPresent() ? " (Retry-After)" : "");
      pause(wait, what);
    }
  }

  private void pause(Duration wait, String what) {
    try {
      environment.sleeper().sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw UnityErrors.interrupted(what, e);
    }
  }
}

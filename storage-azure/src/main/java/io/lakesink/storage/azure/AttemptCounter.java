package io.lakesink.storage.azure;

import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpPipelinePosition;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.util.Context;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * Counts how many times the SDK sent one call, so a put-if-absent that answers "already exists"
 * can tell a lost race (one attempt) from its own earlier attempt having landed (several). Sits
 * after the retry policy, so it sees every attempt; calls without a counter are untouched.
 */
final class AttemptCounter implements HttpPipelinePolicy {
  private static final String KEY = "io.lakesink.storage.azure.attempts";

  /** A call context that counts the attempts of one SDK call into {@code attempts}. */
  static Context context(AtomicInteger attempts) {
    return new Context(KEY, attempts);
  }

  @Override
  public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
    count(context);
    return next.process();
  }

  @Override
  public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
    count(context);
    return next.processSync();
  }

  @Override
  public HttpPipelinePosition getPipelinePosition() {
    return HttpPipelinePosition.PER_RETRY;
  }

  private static void count(HttpPipelineCallContext context) {
    context.getData(KEY).ifPresent(counter -> ((AtomicInteger) counter).incrementAndGet());
  }
}

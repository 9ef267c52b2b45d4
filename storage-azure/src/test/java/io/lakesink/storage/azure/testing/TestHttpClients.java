package io.lakesink.storage.azure.testing;

import com.azure.core.http.HttpClient;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import javax.net.ssl.SSLException;

/** Azure SDK HTTP clients for tests. */
public final class TestHttpClients {
  private TestHttpClients() {}

  /**
   * The SDK's Netty client, trusting only the test certificate: for Azurite in HTTPS mode and the
   * fake token endpoint. Pass it with {@code AzureClientOptions.withHttpClient}.
   */
  public static HttpClient trusting(TestTls tls) {
    try {
      SslContext ssl = SslContextBuilder.forClient().trustManager(tls.certificate()).build();
      reactor.netty.http.client.HttpClient netty =
          reactor.netty.http.client.HttpClient.create().secure(spec -> spec.sslContext(ssl));
      return new NettyAsyncHttpClientBuilder(netty).build();
    } catch (SSLException e) {
      throw new IllegalStateException(e);
    }
  }
}

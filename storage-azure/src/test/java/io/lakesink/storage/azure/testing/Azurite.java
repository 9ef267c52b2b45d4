package io.lakesink.storage.azure.testing;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Azurite blob service on 127.0.0.1 for tests: installed from npm on first use (see
 * {@link AzuriteInstall}), started on a free port, data kept in a temporary directory so that
 * {@link #stop()} and {@link #restart()} (same port) keep it, and removed on {@link #close()}.
 *
 * <p>Plain HTTP with shared-key auth by default; {@link #startWithOAuth} serves HTTPS and accepts
 * Entra bearer tokens ({@code --oauth basic}), for the service-principal path. Share one instance
 * across test classes with {@link AzuriteExtension}; start a private one for tests that stop it.
 */
public final class Azurite implements AutoCloseable {
  public static final String ACCOUNT = "devstoreaccount1";
  /** Azurite's well-known development key (public, not a secret). */
  public static final String KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  private static final Pattern LISTENING = Pattern.compile("successfully listens on (https?)://[^:]+:(\\d+)");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final TestTls tls;
  private final Path workDir;
  private final Path dataDir;
  private Process process;
  private Thread killOnExit;
  private int port;
  private int starts;

  private Azurite(TestTls tls) {
    this.tls = tls;
    try {
      this.workDir = Files.createTempDirectory("lakesink-azurite");
      this.dataDir = Files.createDirectories(workDir.resolve("data"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** HTTP, shared key auth. */
  public static Azurite start() {
    Azurite azurite = new Azurite(null);
    azurite.launch(0);
    return azurite;
  }

  /**
   * HTTPS with the given certificate and {@code --oauth basic}: accepts bearer tokens whose issuer
   * starts with https://sts.windows.net/ and whose audience is https://storage.azure.com (the
   * signature is not checked). Clients must trust {@code tls}, e.g. {@link
   * TestHttpClients#trusting}.
   */
  public static Azurite startWithOAuth(TestTls tls) {
    Azurite azurite = new Azurite(tls);
    azurite.launch(0);
    return azurite;
  }

  public int port() {
    return port;
  }

  /** Blob service URL, path-style: {@code http(s)://127.0.0.1:<port>/devstoreaccount1}. */
  public String blobEndpoint() {
    return baseUrl() + "/" + ACCOUNT;
  }

  /** {@code http(s)://127.0.0.1:<port>}, e.g. as the target of a proxy. */
  public String baseUrl() {
    return (tls != null ? "https" : "http") + "://127.0.0.1:" + port;
  }

  public String connectionString() {
    return "DefaultEndpointsProtocol=" + (tls != null ? "https" : "http") + ";AccountName=" + ACCOUNT
        + ";AccountKey=" + KEY + ";BlobEndpoint=" + blobEndpoint() + ";";
  }

  /** Creates a container (lakesink itself never does) and returns its name. */
  public String createContainer(String name) {
    serviceClient().createBlobContainer(name);
    return name;
  }

  /** Creates a container with a fresh unique name. */
  public String createContainer() {
    return createContainer("c" + UUID.randomUUID().toString().replace("-", "").substring(0, 20));
  }

  /** An SDK client with the account key, for test setup and inspection. */
  public BlobServiceClient serviceClient() {
    BlobServiceClientBuilder builder = new BlobServiceClientBuilder().connectionString(connectionString());
    if (tls != null) {
      builder.httpClient(TestHttpClients.trusting(tls));
    }
    return builder.buildClient();
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Stops the process (SIGTERM, so Azurite saves its metadata); the data stays. */
  public void stop() {
    if (process == null) {
      return;
    }
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
    removeKillOnExit();
  }

  /** Starts again on the same port with the same data, after {@link #stop()}. */
  public void restart() {
    if (isRunning()) {
      throw new IllegalStateException("Azurite is running; stop() it first");
    }
    launch(port);
  }

  /** Stops Azurite and deletes its data, unless -Dlakesink.azurite.debug=true keeps the logs. */
  @Override
  public void close() {
    stop();
    if (Boolean.getBoolean("lakesink.azurite.debug")) {
      System.err.println("Azurite logs kept in " + workDir);
    } else {
      deleteRecursively(workDir);
    }
  }

  private void launch(int requestedPort) {
    Path launcher = AzuriteInstall.blobLauncher();
    Path log = workDir.resolve("azurite-" + (++starts) + ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                launcher.toString(),
                "--blobHost", "127.0.0.1",
                "--blobPort", String.valueOf(requestedPort),
                "--location", dataDir.toString(),
                "--skipApiVersionCheck",
                "--loose",
                "--disableTelemetry",
                // Default 5 s closes idle pooled connections under the SDK's feet; harmless (the
                // SDK retries) but noisy.
                "--blobKeepAliveTimeout", "60"));
    if (Boolean.getBoolean("lakesink.azurite.debug")) {
      command.addAll(List.of("--debug", workDir.resolve("debug-" + starts + ".log").toString()));
    }
    if (tls != null) {
      command.addAll(
          List.of("--oauth", "basic", "--cert", tls.pfx().toString(), "--pwd", tls.password()));
    }
    try {
      process =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot start Azurite (" + launcher + "); is node installed?", e);
    }
    Process started = process;
    killOnExit = new Thread(started::destroyForcibly);
    Runtime.getRuntime().addShutdownHook(killOnExit);
    port = awaitListening(log);
    awaitAnswering(log);
  }

  /** Azurite prints the bound port, which is how port 0 becomes a known port. */
  private int awaitListening(Path log) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      String output = read(log);
      Matcher m = LISTENING.matcher(output);
      if (m.find()) {
        return Integer.parseInt(m.group(2));
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("Azurite exited (" + process.exitValue() + "):\n" + output);
      }
      pause();
    }
    stop();
    throw new IllegalStateException("Azurite did not start within " + START_TIMEOUT + ":\n" + read(log));
  }

  /** Any HTTP answer means the service is up (an anonymous list is refused with 403). */
  private void awaitAnswering(Path log) {
    HttpClient.Builder builder =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2));
    if (tls != null) {
      builder.sslContext(tls.clientContext());
    }
    HttpClient client = builder.build();
    HttpRequest probe =
        HttpRequest.newBuilder(URI.create(blobEndpoint() + "?comp=list"))
            .timeout(Duration.ofSeconds(2))
            .GET()
            .build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try {
        client.send(probe, HttpResponse.BodyHandlers.discarding());
        return;
      } catch (IOException e) {
        last = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      pause();
    }
    stop();
    throw new IllegalStateException("Azurite does not answer on port " + port + ":\n" + read(log), last);
  }

  private void removeKillOnExit() {
    if (killOnExit != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(killOnExit);
      } catch (IllegalStateException shuttingDown) {
        // JVM exit in progress: the hook runs anyway.
      }
      killOnExit = null;
    }
  }

  /** Polling interval while waiting for the process; not used to synchronize anything. */
  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Temporary directory: best effort.
    }
  }
}

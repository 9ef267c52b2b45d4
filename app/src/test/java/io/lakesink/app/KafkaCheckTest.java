package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lakesink check} against brokers that cannot answer, over real sockets: each failure
 * names the configured address, the cause and the key to change, and never the SASL password.
 */
@Timeout(60)
class KafkaCheckTest {
  private static final String PASSWORD = "pa55-w0rd-never-shown";
  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"lakesink\" password=\"" + PASSWORD + "\";";
  private static final Duration SHORT = Duration.ofSeconds(2);

  @TempDir Path dir;

  @Test
  void aClosedPortIsRefusedAndTheCheckSaysWhichAddressAndKey() throws Exception {
    int port = closedPort();
    Path config = config("127.0.0.1:" + port, "SASL_SSL");
    CommandLineTest.Output out = CommandLineTest.run("check", "--config", config.toString());
    assertEquals(ExitCode.CHECK_FAILED.code, out.exit(), out.out() + out.err());
    String text = out.out() + out.err();
    assertTrue(text.contains("FAIL  kafka") && text.contains("127.0.0.1:" + port + ": connection refused"), text);
    assertTrue(text.contains("Check kafka.bootstrap_servers"), text);
    assertFalse(text.contains("Timed out waiting for a node assignment"), text);
    assertFalse(text.contains(PASSWORD), text);
  }

  @Test
  void anUnresolvableHostIsUnknownAndEachAddressGetsItsOwnCause() throws Exception {
    int port = closedPort();
    String bootstrap = "nonexistent-host.invalid:9092,127.0.0.1:" + port;
    String message = failure(config(bootstrap, "PLAINTEXT"), SHORT);
    assertTrue(message.contains("(" + bootstrap + ")"), message);
    assertTrue(message.contains("nonexistent-host.invalid:9092: unknown host"), message);
    assertTrue(message.contains("127.0.0.1:" + port + ": connection refused"), message);
  }

  @Test
  void aListenerThatNeverAnswersIsReportedAfterTheTimeoutWithTheProtocolToCheck() throws Exception {
    // Bound and listening, never accepting: the kernel completes the connection, nothing answers.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + silent.getLocalPort();
      String message = failure(config(address, "PLAINTEXT"), SHORT);
      assertTrue(message.contains("Kafka at " + address + " accepts connections but gave no answer within 2 s"), message);
      assertTrue(message.contains("security.protocol (now PLAINTEXT)"), message);
    }
  }

  @Test
  void aListenerThatDoesNotSpeakTlsFailsTheHandshake() throws Exception {
    try (NotTls server = new NotTls()) {
      String address = "127.0.0.1:" + server.port();
      String message = failure(config(address, "SASL_SSL"), Duration.ofSeconds(20));
      assertTrue(message.startsWith("The TLS handshake with Kafka at " + address + " failed ("), message);
      assertTrue(message.contains("ssl.truststore.location"), message);
      assertFalse(message.contains(PASSWORD), message);
    }
  }

  /** No SASL broker here: the broker's refusal as the admin client hands it on. */
  @Test
  void aRefusedLoginNamesTheMechanismAndNeverThePassword() {
    String message = KafkaCheck.failure(new SaslAuthenticationException("Authentication failed: invalid credentials for "
        + "password=\"" + PASSWORD + "\""), "broker:9093", new BootstrapProbe.Result(List.of("broker:9093"), List.of()),
        Map.of("sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", JAAS), SHORT);
    assertTrue(message.startsWith("Kafka at broker:9093 refused lakesink's authentication (Authentication failed"), message);
    assertTrue(message.contains("sasl.mechanism (now SCRAM-SHA-512)") && message.contains("sasl.jaas.config"), message);
    assertFalse(message.contains(PASSWORD), message);
  }

  private String failure(Path config, Duration timeout) {
    WorkerConfig loaded = ConfigLoader.fromSystemEnvironment().load(config);
    return assertThrows(KafkaCheck.Failed.class, () -> KafkaCheck.run(loaded, timeout)).getMessage();
  }

  private Path config(String bootstrap, String protocol) throws IOException {
    Path file = dir.resolve("check.yaml");
    Files.writeString(file, """
        kafka:
          bootstrap_servers: "%s"
          properties:
            security.protocol: %s
            sasl.mechanism: PLAIN
            sasl.jaas.config: '%s'
        storage: {type: local, path: "%s"}
        subscriptions:
          - {topic: t, table: t}
        """.formatted(bootstrap, protocol, JAAS, dir.resolve("tables")));
    return file;
  }

  /** A port nothing listens on: bound once by this test, then released. */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Answers every connection with an HTTP reply, as a listener that is not TLS would, and keeps it open. */
  private static final class NotTls implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    NotTls() throws IOException {
      Thread t = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket s = server.accept();
            accepted.add(s);
            OutputStream out = s.getOutputStream();
            out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (IOException e) {
            return; // closed
          }
        }
      }, "not-tls");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}

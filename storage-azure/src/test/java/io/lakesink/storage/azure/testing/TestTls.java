package io.lakesink.storage.azure.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway self-signed certificate for 127.0.0.1 and localhost, made with the JDK's keytool:
 * Azurite serves HTTPS with it (as a PFX), the fake Entra token endpoint too, and test clients
 * trust it explicitly instead of changing the JVM's default trust store.
 */
public final class TestTls {
  private final Path pfx;
  private final String password;
  private final KeyStore keyStore;

  private TestTls(Path pfx, String password, KeyStore keyStore) {
    this.pfx = pfx;
    this.password = password;
    this.keyStore = keyStore;
  }

  public static TestTls generate() {
    try {
      Path dir = Files.createTempDirectory("lakesink-tls");
      Path pfx = dir.resolve("server.pfx");
      // Registered before creation: deleteOnExit removes in reverse order, files before the dir.
      dir.toFile().deleteOnExit();
      pfx.toFile().deleteOnExit();
      dir.resolve("keytool.log").toFile().deleteOnExit();
      String password = "lakesink-test";
      String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
      Process process =
          new ProcessBuilder(
                  List.of(
                      keytool, "-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048",
                      "-validity", "7", "-dname", "CN=127.0.0.1",
                      "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                      "-storetype", "PKCS12", "-keystore", pfx.toString(),
                      "-storepass", password, "-keypass", password))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("keytool.log").toFile())
              .start();
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(
            "keytool failed: " + Files.readString(dir.resolve("keytool.log")));
      }
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(pfx)) {
        keyStore.load(in, password.toCharArray());
      }
      return new TestTls(pfx, password, keyStore);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("Cannot create a test certificate", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** PKCS#12 file with key and certificate, as Azurite's --cert/--pwd take it. */
  public Path pfx() {
    return pfx;
  }

  public String password() {
    return password;
  }

  public X509Certificate certificate() {
    try {
      return (X509Certificate) keyStore.getCertificate("server");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** For an HTTPS server presenting the certificate. */
  public SSLContext serverContext() {
    try {
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keyStore, password.toCharArray());
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** For a JDK client that trusts only the certificate. */
  public SSLContext clientContext() {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("server", certificate());
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}

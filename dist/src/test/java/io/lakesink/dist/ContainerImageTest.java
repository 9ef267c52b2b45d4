package io.lakesink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.dist.image.OciImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image {@code mvn package} writes (target/lakesink-VERSION-image.tar), read as a
 * runtime would read it: an OCI layout whose digests hold, a config that runs the archive's
 * launcher as a non-root user with the status port exposed, and the Kubernetes manifests under
 * deploy/kubernetes agreeing with it (user, arguments, port).
 */
@Timeout(300)
class ContainerImageTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path root;
  static JsonNode manifest;
  static JsonNode config;

  @BeforeAll
  static void unpack() throws Exception {
    Path image = Path.of(System.getProperty("lakesink.image"));
    assertTrue(Files.isRegularFile(image), image + " was not built");
    Process tar = new ProcessBuilder("tar", "-xf", image.toString(), "-C", root.toString()).inheritIO().start();
    assertTrue(tar.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, tar.exitValue());
    JsonNode index = JSON.readTree(root.resolve("index.json").toFile());
    assertEquals("1.0.0", JSON.readTree(root.resolve("oci-layout").toFile()).path("imageLayoutVersion").asText());
    assertEquals(1, index.path("manifests").size(), index.toString());
    manifest = JSON.readTree(verifiedBlob(index.path("manifests").get(0)).toFile());
    config = JSON.readTree(verifiedBlob(manifest.path("config")).toFile());
  }

  @Test
  void runsTheArchivesLauncherAsANonRootUserWithTheStatusPortExposed() {
    JsonNode c = config.path("config");
    String user = c.path("User").asText();
    assertTrue(user.matches("[1-9][0-9]*:[1-9][0-9]*"), "numeric uid:gid, not root: " + user);
    assertEquals(List.of(OciImage.ENTRYPOINT), strings(c.path("Entrypoint")));
    assertEquals("/opt/lakesink/bin/lakesink", OciImage.ENTRYPOINT);
    assertEquals(List.of(WorkerConfig.StatusSettings.DEFAULT.port() + "/tcp"), names(c.path("ExposedPorts")));
    assertEquals("linux", config.path("os").asText());
    // An image-level LAKESINK_STATUS_HOST would override status.host in every user's file.
    assertTrue(strings(c.path("Env")).stream().noneMatch(e -> e.startsWith("LAKESINK_")), c.toString());
  }

  @Test
  void layersHoldTheArchiveUnderOptLakesinkWithAnExecutableLauncherOwnedByRoot() throws Exception {
    List<String> listing = new ArrayList<>();
    JsonNode layers = manifest.path("layers");
    JsonNode diffIds = config.path("rootfs").path("diff_ids");
    assertEquals(2, layers.size(), "third-party jars and lakesink's own files, apart");
    for (int i = 0; i < layers.size(); i++) {
      Path blob = verifiedBlob(layers.get(i));
      assertEquals("application/vnd.oci.image.layer.v1.tar+gzip", layers.get(i).path("mediaType").asText());
      try (InputStream in = new GZIPInputStream(Files.newInputStream(blob))) {
        assertEquals(diffIds.get(i).asText(), "sha256:" + sha256(in), "diff_id of layer " + i);
      }
      Process tar = new ProcessBuilder("tar", "-tvzf", blob.toString()).redirectErrorStream(true).start();
      listing.addAll(new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList());
      assertEquals(0, tar.waitFor());
    }
    assertTrue(listing.stream().anyMatch(l -> l.startsWith("-rwxr-xr-x root/root") && l.endsWith(" opt/lakesink/bin/lakesink")),
        String.join("\n", listing));
    assertTrue(listing.stream().anyMatch(l -> l.matches(".* opt/lakesink/lib/lakesink-app-[^/]*\\.jar")), "the worker");
    assertTrue(listing.stream().anyMatch(l -> l.matches(".* opt/lakesink/lib/kafka-clients-[^/]*\\.jar")), "its dependencies");
    assertTrue(listing.stream().anyMatch(l -> l.endsWith(" opt/lakesink/contrib/prometheus/lakesink-alerts.yml")));
    assertTrue(listing.stream().noneMatch(l -> l.contains("opt/lakesink/lib/demo/")), "the demo's broker stays out");
    assertTrue(listing.stream().anyMatch(l -> l.startsWith("drwxr-x--- lakesink/lakesink") && l.endsWith(" var/lib/lakesink/")),
        "a data directory the worker owns");
    // Nothing of the worker's code is writable by the user it runs as.
    assertTrue(listing.stream().filter(l -> l.contains(" opt/")).allMatch(l -> l.contains(" root/root ")),
        String.join("\n", listing));
  }

  @Test
  void theKubernetesStatefulSetRunsTheImageAsItIsBuilt() throws Exception {
    Path manifests = Path.of(System.getProperty("lakesink.root"), "deploy", "kubernetes");
    JsonNode statefulSet = new ObjectMapper(new YAMLFactory()).readTree(manifests.resolve("statefulset.yaml").toFile());
    JsonNode pod = statefulSet.path("spec").path("template").path("spec");
    JsonNode container = pod.path("containers").get(0);
    JsonNode c = config.path("config");
    String[] user = c.path("User").asText().split(":");
    assertEquals(user[0], pod.path("securityContext").path("runAsUser").asText());
    assertEquals(user[1], pod.path("securityContext").path("fsGroup").asText());
    assertTrue(pod.path("securityContext").path("runAsNonRoot").asBoolean());
    assertTrue(container.path("command").isMissingNode(), "the image's entry point, the launcher, is used");
    assertEquals(strings(c.path("Cmd")), strings(container.path("args")));
    List<String> ports = new ArrayList<>();
    container.path("ports").forEach(p -> ports.add(p.path("containerPort").asText() + "/tcp"));
    assertEquals(names(c.path("ExposedPorts")), ports);
  }

  /**
   * Where a base image can be had (-Dlakesink.image.base=DIR, an OCI layout as skopeo writes it),
   * the image is built on it: its layers first, its environment (JAVA_HOME, PATH) kept, ours after.
   */
  @Test
  void onABaseImageItsLayersComeFirstAndItsEnvironmentStays(@TempDir Path tmp) throws Exception {
    Path fs = Files.createDirectories(tmp.resolve("fs/opt/java/bin"));
    Files.writeString(fs.resolve("java"), "#!/bin/sh\n");
    Path baseTar = tmp.resolve("base-layer.tar");
    Process tar = new ProcessBuilder("tar", "-cf", baseTar.toString(), "-C", tmp.resolve("fs").toString(), "opt")
        .inheritIO().start();
    assertEquals(0, tar.waitFor());
    String diffId = "sha256:" + sha256(Files.newInputStream(baseTar));
    Path layout = Files.createDirectories(tmp.resolve("base/blobs/sha256"));
    Path gz = tmp.resolve("base-layer.tar.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      Files.copy(baseTar, out);
    }
    String layerDigest = blob(layout, Files.readAllBytes(gz));
    String baseConfig = blob(layout, ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":"
        + "[\"PATH=/opt/java/bin:/usr/bin:/bin\",\"JAVA_HOME=/opt/java\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\""
        + diffId + "\"]},\"history\":[{\"created_by\":\"base\"}]}").getBytes(StandardCharsets.UTF_8));
    byte[] baseManifest = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":"
        + "{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"" + baseConfig + "\",\"size\":"
        + Files.size(layout.resolve(baseConfig.substring(7))) + "},\"layers\":[{\"mediaType\":"
        + "\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"" + layerDigest + "\",\"size\":" + Files.size(gz) + "}]}")
        .getBytes(StandardCharsets.UTF_8);
    String manifestDigest = blob(layout, baseManifest);
    Files.writeString(tmp.resolve("base/index.json"), "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":"
        + "\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" + manifestDigest + "\",\"size\":"
        + baseManifest.length + "}]}");

    Path image = Path.of(System.getProperty("lakesink.image"));
    String name = image.getFileName().toString().replace("-image.tar", "");
    Path dist = image.resolveSibling(name + "-image-root").resolve(name);
    Path out = tmp.resolve("on-base.tar");
    OciImage.build(dist, out, "test", tmp.resolve("base"));

    Path unpacked = Files.createDirectories(tmp.resolve("unpacked"));
    Process x = new ProcessBuilder("tar", "-xf", out.toString(), "-C", unpacked.toString()).inheritIO().start();
    assertEquals(0, x.waitFor());
    JsonNode index = JSON.readTree(unpacked.resolve("index.json").toFile());
    String manifestHex = index.path("manifests").get(0).path("digest").asText().substring(7);
    JsonNode m = JSON.readTree(unpacked.resolve("blobs/sha256").resolve(manifestHex).toFile());
    JsonNode c = JSON.readTree(unpacked.resolve("blobs/sha256").resolve(m.path("config").path("digest").asText().substring(7)).toFile());
    assertEquals(3, m.path("layers").size());
    assertEquals(layerDigest, m.path("layers").get(0).path("digest").asText(), "the base's layer first");
    assertEquals(diffId, c.path("rootfs").path("diff_ids").get(0).asText());
    assertEquals(3, c.path("rootfs").path("diff_ids").size());
    assertEquals(3, c.path("history").size(), "history matches the layers");
    assertEquals(List.of("PATH=/opt/java/bin:/usr/bin:/bin", "JAVA_HOME=/opt/java"), strings(c.path("config").path("Env")));
    assertEquals(config.path("config").path("User"), c.path("config").path("User"));
    assertEquals(config.path("config").path("Entrypoint"), c.path("config").path("Entrypoint"));
    for (JsonNode layer : m.path("layers")) {
      Path b = unpacked.resolve("blobs/sha256").resolve(layer.path("digest").asText().substring(7));
      try (InputStream in = Files.newInputStream(b)) {
        assertEquals(layer.path("digest").asText(), "sha256:" + sha256(in));
      }
    }
  }

  private static String blob(Path blobs, byte[] content) throws IOException {
    String hex = sha256(new java.io.ByteArrayInputStream(content));
    Files.write(blobs.resolve(hex), content);
    return "sha256:" + hex;
  }

  /** The blob a descriptor points to, after checking its size and digest. */
  private static Path verifiedBlob(JsonNode descriptor) throws IOException {
    String digest = descriptor.path("digest").asText();
    assertTrue(digest.startsWith("sha256:"), descriptor.toString());
    Path blob = root.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    assertEquals(descriptor.path("size").asLong(), Files.size(blob), digest);
    try (InputStream in = Files.newInputStream(blob)) {
      assertEquals(digest, "sha256:" + sha256(in));
    }
    return blob;
  }

  private static String sha256(InputStream in) throws IOException {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    assertNotEquals(0, out.size(), "empty: " + array);
    return out;
  }

  private static List<String> names(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    assertFalse(out.isEmpty(), "empty: " + object);
    return out;
  }
}

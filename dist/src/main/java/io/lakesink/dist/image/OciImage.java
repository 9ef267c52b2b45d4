package io.lakesink.dist.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lakesink.app.config.WorkerConfig;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Writes the worker's container image as an OCI image layout archive ({@code oci-layout},
 * {@code index.json}, {@code blobs/sha256/...}, plus Docker's {@code manifest.json} so that
 * {@code docker load} takes it too), from the unpacked distribution: no Docker daemon, no
 * registry. Run by the dist module's package phase after the tarball is assembled.
 *
 * <p>By default the image holds the archive under {@code /opt/lakesink} and nothing else: only
 * Maven Central is reachable where it is built, so no base image (and no Java runtime) can be
 * pulled into it. Given a base image as an OCI layout directory (for instance written by
 * {@code skopeo copy docker://eclipse-temurin:17-jre oci:DIR}), its layers come first and its
 * environment ({@code PATH}, {@code JAVA_HOME}) is kept, which makes the image runnable; the
 * launcher finds Java as for the archive.
 *
 * <p>Usage: {@code OciImage <unpacked lakesink-VERSION dir> <out.tar> <version> [<base OCI layout dir>]}
 */
public final class OciImage {
  /** Not root: the worker needs no privilege, and a container breakout would not start as root. */
  public static final int UID = 10001;
  public static final String HOME = "/opt/lakesink";
  public static final String ENTRYPOINT = HOME + "/bin/lakesink";
  /** Where a local-storage deployment keeps its tables (a volume in Kubernetes), owned by {@link #UID}. */
  public static final String DATA = "/var/lib/lakesink";
  public static final String CONFIG = "/etc/lakesink/lakesink.yaml";

  private static final ObjectMapper JSON = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  private static final String LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
  private static final String CONFIG_TYPE = "application/vnd.oci.image.config.v1+json";
  private static final String MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";
  /** Every file carries this time, like the config's "created": the same build gives the same digests. */
  private static final long MTIME = 0;

  private record Blob(String digest, String diffId, long size, Path file) {}

  /** A base layer: its descriptor as the base's manifest gives it (media type kept) and its blob. */
  private record BaseLayer(ObjectNode descriptor, Blob blob) {}

  /** The base image: its config and layers, or none. */
  private record Base(JsonNode config, List<BaseLayer> layers) {
    static final Base NONE = new Base(JSON.createObjectNode(), List.of());

    /**
     * The image of an OCI layout directory: the one manifest its index names (skopeo copies one
     * platform), or the linux/amd64 entry of an index of several.
     */
    static Base read(Path dir) throws IOException {
      JsonNode index = JSON.readTree(dir.resolve("index.json").toFile());
      JsonNode manifest = null;
      for (int depth = 0; depth < 2 && manifest == null; depth++) {
        JsonNode chosen = null;
        for (JsonNode m : index.path("manifests")) {
          JsonNode platform = m.path("platform");
          if (index.path("manifests").size() == 1
              || ("linux".equals(platform.path("os").asText()) && "amd64".equals(platform.path("architecture").asText()))) {
            chosen = m;
            break;
          }
        }
        if (chosen == null) {
          throw new IOException(dir + " holds no linux/amd64 image");
        }
        JsonNode node = JSON.readTree(blobPath(dir, chosen.path("digest").asText()).toFile());
        if (node.has("manifests")) {
          index = node; // an image index inside the layout: choose again, one level down
        } else {
          manifest = node;
        }
      }
      if (manifest == null) {
        throw new IOException(dir + ": no image manifest within two levels of index");
      }
      JsonNode config = JSON.readTree(blobPath(dir, manifest.path("config").path("digest").asText()).toFile());
      List<BaseLayer> layers = new ArrayList<>();
      for (JsonNode l : manifest.path("layers")) {
        String digest = l.path("digest").asText();
        layers.add(new BaseLayer((ObjectNode) l.deepCopy(), new Blob(digest, null, l.path("size").asLong(), blobPath(dir, digest))));
      }
      if (layers.size() != config.path("rootfs").path("diff_ids").size()) {
        throw new IOException(dir + ": the base's manifest and config disagree on its layers");
      }
      return new Base(config, layers);
    }

    private static Path blobPath(Path dir, String digest) throws IOException {
      if (!digest.matches("sha256:[0-9a-f]{64}")) {
        throw new IOException("Unsupported digest in " + dir + ": " + digest);
      }
      return dir.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3 || args.length > 4) {
      throw new IllegalArgumentException("usage: OciImage <unpacked dist dir> <out.tar> <version> [<base OCI layout dir>]");
    }
    String base = args.length == 4 && args[3] != null ? args[3].trim() : ""; // Maven passes an empty property as null
    build(Path.of(args[0]), Path.of(args[1]), args[2], base.isEmpty() ? null : Path.of(base));
  }

  /** @param base an OCI image layout directory holding one image to build on, or null for none */
  public static void build(Path dist, Path out, String version, Path base) throws IOException {
    Base from = base == null ? Base.NONE : Base.read(base);
    Path work = out.resolveSibling(out.getFileName() + ".work");
    Files.createDirectories(work);
    // Two layers: third-party jars change least often, so a new build of lakesink itself
    // ships (and pulls) only the second. The demo's in-process broker (lib/demo) stays out:
    // `lakesink demo` is for a laptop, not a cluster, and it would add a third of the size.
    Predicate<Path> demo = p -> dist.relativize(p).startsWith("lib/demo");
    Predicate<Path> thirdParty = p -> dist.relativize(p).startsWith("lib") && !demo.test(p)
        && !p.getFileName().toString().startsWith("lakesink-");
    Blob deps = layer(work.resolve("layer-deps.tar.gz"), dist, p -> thirdParty.test(p), false);
    Blob app = layer(work.resolve("layer-app.tar.gz"), dist, p -> !thirdParty.test(p) && !demo.test(p), true);

    ObjectNode config = JSON.createObjectNode();
    config.put("created", "1970-01-01T00:00:00Z");
    config.put("architecture", from.config().path("architecture").asText("amd64"));
    config.put("os", from.config().path("os").asText("linux"));
    ObjectNode c = config.putObject("config");
    // The base's environment (PATH, JAVA_HOME, LANG) is what makes its Java usable.
    ArrayNode env = c.putArray("Env");
    from.config().path("config").path("Env").forEach(env::add);
    if (from.layers().isEmpty()) {
      env.add("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    }
    c.put("User", UID + ":" + UID);
    c.putArray("Entrypoint").add(ENTRYPOINT);
    c.putArray("Cmd").add("run").add("--config").add(CONFIG);
    c.putObject("ExposedPorts").putObject(WorkerConfig.StatusSettings.DEFAULT.port() + "/tcp");
    c.put("WorkingDir", DATA);
    // No LAKESINK_STATUS_HOST in Env: an override in the image would beat status.host in the
    // user's file. A container sets it (Kubernetes: the pod IP, see deploy/kubernetes).
    ObjectNode labels = c.putObject("Labels");
    labels.put("org.opencontainers.image.title", "lakesink");
    labels.put("org.opencontainers.image.version", version);
    labels.put("org.opencontainers.image.description", from.layers().isEmpty()
        ? "lakesink worker layers: put on a base image with Java 17+ and bash (e.g. eclipse-temurin:17-jre)"
        : "lakesink worker");
    ObjectNode rootfs = config.putObject("rootfs");
    rootfs.put("type", "layers");
    ArrayNode diffIds = rootfs.putArray("diff_ids");
    from.config().path("rootfs").path("diff_ids").forEach(diffIds::add);
    diffIds.add(deps.diffId()).add(app.diffId());
    // Docker matches history entries to layers: keep the base's and add ours, or write none.
    if (from.config().has("history")) {
      ArrayNode history = config.putArray("history");
      from.config().path("history").forEach(history::add);
      history.addObject().put("created", "1970-01-01T00:00:00Z").put("created_by", "lakesink: third-party jars");
      history.addObject().put("created", "1970-01-01T00:00:00Z").put("created_by", "lakesink: bin, config, contrib, lakesink jars");
    }
    Blob configBlob = json(work.resolve("config.json"), config);

    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("schemaVersion", 2);
    manifest.put("mediaType", MANIFEST_TYPE);
    manifest.set("config", descriptor(CONFIG_TYPE, configBlob));
    ArrayNode layers = manifest.putArray("layers");
    from.layers().forEach(l -> layers.add(l.descriptor()));
    layers.add(descriptor(LAYER_TYPE, deps)).add(descriptor(LAYER_TYPE, app));
    Blob manifestBlob = json(work.resolve("manifest.json"), manifest);

    ObjectNode index = JSON.createObjectNode();
    index.put("schemaVersion", 2);
    index.put("mediaType", "application/vnd.oci.image.index.v1+json");
    ObjectNode m = descriptor(MANIFEST_TYPE, manifestBlob);
    m.putObject("annotations").put("org.opencontainers.image.ref.name", version);
    index.putArray("manifests").add(m);

    // docker load reads this file (older Docker ignores the OCI files, newer reads either).
    ArrayNode docker = JSON.createArrayNode();
    ObjectNode d = docker.addObject();
    d.put("Config", "blobs/sha256/" + hex(configBlob));
    d.putArray("RepoTags").add("lakesink:" + version);
    ArrayNode dockerLayers = d.putArray("Layers");
    from.layers().forEach(l -> dockerLayers.add("blobs/sha256/" + hex(l.blob())));
    dockerLayers.add("blobs/sha256/" + hex(deps)).add("blobs/sha256/" + hex(app));

    Path partial = out.resolveSibling(out.getFileName() + ".partial");
    try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16);
        TarWriter tar = new TarWriter(os, MTIME)) {
      tar.file("oci-layout", 0644, "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes());
      tar.file("index.json", 0644, JSON.writeValueAsBytes(index));
      tar.file("manifest.json", 0644, JSON.writeValueAsBytes(docker));
      tar.directory("blobs", 0755, 0, 0);
      tar.directory("blobs/sha256", 0755, 0, 0);
      List<Blob> blobs = new ArrayList<>();
      from.layers().forEach(l -> blobs.add(l.blob()));
      blobs.addAll(List.of(deps, app, configBlob, manifestBlob));
      for (Blob b : blobs) {
        tar.file("blobs/sha256/" + hex(b), 0644, 0, 0, b.file());
      }
    }
    Files.move(partial, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    try (Stream<Path> files = Files.walk(work)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** One gzip layer of the files of {@code dist} that {@code include} takes, under {@link #HOME}. */
  private static Blob layer(Path file, Path dist, Predicate<Path> include, boolean withDirs) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(dist)) {
      paths = walk.filter(p -> !p.equals(dist)).sorted().toList();
    }
    MessageDigest compressed = sha256();
    MessageDigest raw = sha256();
    try (OutputStream fileOut = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        DigestOutputStream digested = new DigestOutputStream(fileOut, compressed);
        GZIPOutputStream gzip = new FastGzip(digested);
        DigestOutputStream plain = new DigestOutputStream(gzip, raw);
        TarWriter tar = new TarWriter(plain, MTIME)) {
      // Parents first, so an unpacking runtime creates them with these modes, not its defaults.
      List<String> parents = new ArrayList<>(List.of("opt", "opt/lakesink"));
      if (withDirs) {
        parents.addAll(List.of("var", "var/lib"));
      }
      for (String dir : parents) {
        tar.directory(dir, 0755, 0, 0);
      }
      if (withDirs) {
        tar.directory(DATA.substring(1), 0750, UID, UID);
      }
      for (Path p : paths) {
        String name = HOME.substring(1) + "/" + dist.relativize(p).toString().replace('\\', '/');
        if (Files.isDirectory(p)) {
          if (hasIncluded(p, include)) {
            tar.directory(name, 0755, 0, 0);
          }
        } else if (include.test(p)) {
          // Owned by root and not writable by the worker: it reads its code, never changes it.
          tar.file(name, Files.isExecutable(p) ? 0755 : 0644, 0, 0, p);
        }
      }
    }
    return new Blob("sha256:" + HexFormat.of().formatHex(compressed.digest()),
        "sha256:" + HexFormat.of().formatHex(raw.digest()), Files.size(file), file);
  }

  private static boolean hasIncluded(Path dir, Predicate<Path> include) {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.anyMatch(p -> Files.isRegularFile(p) && include.test(p));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Blob json(Path file, ObjectNode node) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(node);
    Files.write(file, bytes);
    String digest = "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
    return new Blob(digest, digest, bytes.length, file);
  }

  private static ObjectNode descriptor(String mediaType, Blob blob) {
    ObjectNode d = JSON.createObjectNode();
    d.put("mediaType", mediaType);
    d.put("digest", blob.digest());
    d.put("size", blob.size());
    return d;
  }

  private static String hex(Blob b) {
    return b.digest().substring("sha256:".length());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * gzip at the fastest level: the layers are mostly jars, already deflated, so a higher level
   * gains almost nothing and would cost the build seconds on every package.
   */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws IOException {
      super(out, 1 << 16);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  private OciImage() {}
}

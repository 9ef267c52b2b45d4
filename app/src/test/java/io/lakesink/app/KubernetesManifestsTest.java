package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.app.status.StatusServer;
import io.lakesink.app.status.WorkerMetrics;
import io.lakesink.kafka.WorkerStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The manifests under deploy/kubernetes agree with the worker: the probes ask paths the status
 * server serves on the port the configuration gives it, every variable the pod sets is one the
 * worker reads (a misspelt LAKESINK_* override is refused by the loader), the ConfigMap's
 * configuration loads with them, each pod's kafka.instance_id is its name and status.host its IP,
 * and the grace period outlasts the shutdown timeout. (The image side is dist's ContainerImageTest.)
 */
class KubernetesManifestsTest {
  static final Path DIR = Path.of("..", "deploy", "kubernetes");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final String POD_NAME = "lakesink-1";
  static final String POD_IP = "10.20.30.40";

  @Test
  void kustomizationListsEveryManifest() throws Exception {
    Set<String> listed = new TreeSet<>();
    YAML.readTree(DIR.resolve("kustomization.yaml").toFile()).path("resources").forEach(r -> listed.add(r.asText()));
    Set<String> present = new TreeSet<>();
    try (var files = Files.list(DIR)) {
      files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
          .forEach(present::add);
    }
    assertEquals(present, listed);
  }

  @Test
  void theConfigMapLoadsWithThePodsEnvironment() throws Exception {
    JsonNode container = container();
    String yaml = configMapYaml();
    WorkerConfig config = new ConfigLoader(podEnvironment(container)).parse(yaml, "configmap.yaml");
    assertEquals(POD_NAME, config.kafka().instanceId(), "kafka.instance_id from the pod name");
    assertEquals(POD_IP, config.status().host(), "status bound to the pod IP");
    assertTrue(config.status().enabled());

    // Every Secret the pod takes is used by the configuration, and every ${env:NAME} is set.
    Set<String> secrets = new TreeSet<>();
    Set<String> envNames = new TreeSet<>();
    container.path("env").forEach(e -> {
      envNames.add(e.path("name").asText());
      if (e.path("valueFrom").has("secretKeyRef")) {
        secrets.add(e.path("name").asText());
      }
    });
    Set<String> referenced = new TreeSet<>();
    Matcher m = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}").matcher(yaml);
    while (m.find()) {
      referenced.add(m.group(1));
    }
    assertEquals(referenced, secrets);
    assertTrue(envNames.containsAll(Set.of("LAKESINK_KAFKA_INSTANCE_ID", "LAKESINK_STATUS_HOST", GracefulShutdown.TIMEOUT_ENV)),
        envNames.toString());
    assertTrue(container.path("envFrom").isMissingNode(), "variables named one by one, so this test sees them all");
  }

  @Test
  void probesAskPathsTheStatusServerServesOnItsPort() throws Exception {
    JsonNode container = container();
    WorkerConfig config = new ConfigLoader(podEnvironment(container)).parse(configMapYaml(), "configmap.yaml");
    Map<String, Integer> ports = new LinkedHashMap<>();
    container.path("ports").forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
    assertEquals(Map.of("status", config.status().port()), ports, "the container port is status.port");

    JsonNode liveness = container.path("livenessProbe").path("httpGet");
    JsonNode readiness = container.path("readinessProbe").path("httpGet");
    assertEquals("/health", liveness.path("path").asText());
    assertEquals("/ready", readiness.path("path").asText());
    assertEquals(config.status().port(), ports.get(liveness.path("port").asText()));
    assertEquals(config.status().port(), ports.get(readiness.path("port").asText()));

    // The paths as a worker serves them: a live /health, and /ready answering (503 while starting), never 404.
    WorkerMetrics metrics = new WorkerMetrics(() -> WorkerStatus.STARTING);
    try (StatusServer server = StatusServer.start("127.0.0.1", 0, () -> WorkerStatus.STARTING, metrics)) {
      assertEquals(200, StatusEndpointTest.get(server.port(), liveness.path("path").asText()).statusCode());
      assertEquals(503, StatusEndpointTest.get(server.port(), readiness.path("path").asText()).statusCode());
      assertEquals(404, StatusEndpointTest.get(server.port(), "/no-such-path").statusCode(), "a wrong path would show");
    }

    JsonNode service = YAML.readTree(DIR.resolve("service.yaml").toFile());
    JsonNode servicePort = service.path("spec").path("ports").get(0);
    assertEquals(config.status().port(), servicePort.path("port").asInt());
    assertEquals(config.status().port(), ports.get(servicePort.path("targetPort").asText()));
    JsonNode annotations = statefulSet().path("spec").path("template").path("metadata").path("annotations");
    assertEquals(String.valueOf(config.status().port()), annotations.path("prometheus.io/port").asText());
    assertEquals("/metrics", annotations.path("prometheus.io/path").asText());
  }

  @Test
  void theGracePeriodOutlastsTheShutdownTimeout() throws Exception {
    String timeout = podEnvironment(container()).get(GracefulShutdown.TIMEOUT_ENV);
    Duration shutdown = GracefulShutdown.timeout(null, timeout);
    long grace = statefulSet().path("spec").path("template").path("spec").path("terminationGracePeriodSeconds").asLong();
    assertTrue(grace >= shutdown.toSeconds() + 10,
        "terminationGracePeriodSeconds " + grace + " leaves the worker's " + shutdown + " no margin to exit");
  }

  @Test
  void workersAreAStatefulSetSoPodNamesAndInstanceIdsSurviveRestarts() throws Exception {
    JsonNode statefulSet = statefulSet();
    assertEquals("StatefulSet", statefulSet.path("kind").asText());
    JsonNode instanceId = env(container(), "LAKESINK_KAFKA_INSTANCE_ID");
    assertEquals("metadata.name", instanceId.path("valueFrom").path("fieldRef").path("fieldPath").asText());
    assertEquals("status.podIP", env(container(), "LAKESINK_STATUS_HOST").path("valueFrom").path("fieldRef").path("fieldPath").asText());
    assertNotEquals(0, statefulSet.path("spec").path("replicas").asInt());
  }

  static JsonNode statefulSet() throws Exception {
    return YAML.readTree(DIR.resolve("statefulset.yaml").toFile());
  }

  static JsonNode container() throws Exception {
    JsonNode containers = statefulSet().path("spec").path("template").path("spec").path("containers");
    assertEquals(1, containers.size());
    return containers.get(0);
  }

  static String configMapYaml() throws Exception {
    return YAML.readTree(DIR.resolve("configmap.yaml").toFile()).path("data").path("lakesink.yaml").asText();
  }

  static JsonNode env(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) {
      if (e.path("name").asText().equals(name)) {
        return e;
      }
    }
    throw new AssertionError(name + " is not set in the StatefulSet");
  }

  /**
   * The environment the kubelet gives the container: literal values, the downward API's pod name
   * and IP, and a stand-in for each Secret key. Kubernetes also sets HOSTNAME to the pod name.
   */
  static Map<String, String> podEnvironment(JsonNode container) {
    Map<String, String> env = new HashMap<>();
    env.put("HOSTNAME", POD_NAME);
    for (JsonNode e : container.path("env")) {
      String name = e.path("name").asText();
      JsonNode from = e.path("valueFrom");
      if (e.has("value")) {
        env.put(name, e.path("value").asText());
      } else if (from.has("fieldRef")) {
        String field = from.path("fieldRef").path("fieldPath").asText();
        env.put(name, switch (field) {
          case "metadata.name" -> POD_NAME;
          case "status.podIP" -> POD_IP;
          default -> throw new AssertionError("a field this test does not know: " + field);
        });
      } else if (from.has("secretKeyRef")) {
        env.put(name, "secret-" + from.path("secretKeyRef").path("key").asText());
      } else {
        throw new AssertionError("an env entry this test does not know: " + e);
      }
    }
    return env;
  }
}

package io.lakesink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.health.ConnectorHealth;
import org.apache.kafka.connect.runtime.rest.ConnectRestConfigurable;
import org.apache.kafka.connect.runtime.rest.ConnectRestExtensionContextImpl;
import org.glassfish.jersey.internal.MapPropertiesDelegate;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.Test;

/**
 * The extension registered as Connect registers it (through its {@link ConnectRestConfigurable}),
 * on the Jersey that Connect runs, without a cluster: Jersey accepts the resource without a
 * warning (a registered instance was logged as "will be ignored"), and it answers.
 */
class LakesinkRestExtensionTest {
  @Test
  void theStatusResourceIsAcceptedQuietlyAndAnswers() throws Exception {
    List<LogRecord> warnings = new ArrayList<>();
    Handler collect = new Handler() {
      @Override
      public void publish(LogRecord r) {
        if (r.getLevel().intValue() >= Level.WARNING.intValue() && String.valueOf(r.getMessage()).contains("io.lakesink")) {
          warnings.add(r);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger jersey = Logger.getLogger("org.glassfish.jersey");
    jersey.addHandler(collect);
    try {
      ResourceConfig config = new ResourceConfig();
      config.property(ServerProperties.WADL_FEATURE_DISABLE, true); // as Connect sets it
      try (LakesinkRestExtension extension = new LakesinkRestExtension()) {
        extension.register(new ConnectRestExtensionContextImpl(new ConnectRestConfigurable(config), new OneConnector("orders")));
        ApplicationHandler app = new ApplicationHandler(config);
        assertEquals(200, get(app, "lakesink/status").getStatus());
        assertEquals(404, get(app, "lakesink/connectors/nope/status").getStatus());
        assertEquals(200, get(app, "lakesink/connectors/orders/status").getStatus());
      }
    } finally {
      jersey.removeHandler(collect);
    }
    assertTrue(warnings.isEmpty(), "Jersey warned: " + warnings.stream().map(LogRecord::getMessage).toList());
  }

  /** A request handled in memory, as Connect's servlet would hand it on; the body must be the JSON. */
  private static ContainerResponse get(ApplicationHandler app, String path) throws Exception {
    URI base = URI.create("http://localhost/");
    ContainerRequest request = new ContainerRequest(base, base.resolve(path), "GET", null, new MapPropertiesDelegate(), null);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    ContainerResponse response = app.apply(request, body).get();
    String text = body.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains(response.getStatus() == 200 ? "\"tasks\"" : "\"error_code\""), text);
    return response;
  }

  private record OneConnector(String name) implements ConnectClusterState {
    @Override
    public Collection<String> connectors() {
      return List.of(name);
    }

    @Override
    public ConnectorHealth connectorHealth(String connName) {
      throw new UnsupportedOperationException();
    }
  }
}

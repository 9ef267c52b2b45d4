package io.lakesink.connect;

import java.util.Map;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;

/**
 * Adds {@code GET /lakesink/status} and {@code GET /lakesink/connectors/<name>/status} to the
 * worker's REST API (enabled with the worker setting
 * {@code rest.extension.classes=io.lakesink.connect.LakesinkRestExtension}): Connect's own
 * status stays RUNNING while a table is quarantined, so this is where an operator sees it.
 */
public final class LakesinkRestExtension implements ConnectRestExtension {
  @Override
  public void register(ConnectRestExtensionContext context) {
    context.configurable().register(new StatusResource(context.clusterState()));
  }

  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public void close() {}

  @Override
  public String version() {
    return Version.get();
  }
}

package io.lakesink.connect;

import java.util.Map;
import org.apache.kafka.connect.health.ConnectClusterState;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.rest.ConnectRestExtensionContext;
import org.glassfish.jersey.internal.inject.AbstractBinder;

/**
 * Adds {@code GET /lakesink/status} and {@code GET /lakesink/connectors/<name>/status} to the
 * worker's REST API (enabled with the worker setting
 * {@code rest.extension.classes=io.lakesink.connect.LakesinkRestExtension}): Connect's own
 * status stays RUNNING while a table is quarantined, so this is where an operator sees it.
 */
public final class LakesinkRestExtension implements ConnectRestExtension {
  /**
   * Registers the resource's class, not an instance: Jersey checks a registered instance against
   * the resource <em>classes</em> only, takes it for a provider with no provider interface and logs
   * that it "will be ignored" (while serving it anyway). A class is checked as the resource it is;
   * its constructor gets the cluster state from the binder.
   */
  @Override
  public void register(ConnectRestExtensionContext context) {
    ConnectClusterState cluster = context.clusterState();
    context.configurable().register(new AbstractBinder() {
      @Override
      protected void configure() {
        bind(cluster).to(ConnectClusterState.class);
      }
    });
    context.configurable().register(StatusResource.class);
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

package org.apache.iceberg.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.responses.ConfigResponse;

/**
 * The iceberg-open-api test fixtures' REST adapter (the one {@code RESTCatalogServer} serves)
 * over a backend catalog, with the unregister route listed in {@code GET /v1/config} when {@code
 * advertiseUnregister} says so. In Iceberg's package: the fixture's classes are package-private.
 */
public final class LakesinkFixtureAdapter {
  /** The spec's unregister route, as a server lists it in {@code /v1/config}'s endpoints. */
  public static final Endpoint UNREGISTER = Endpoint.create("POST", ResourcePaths.V1_TABLE + "/unregister");

  private LakesinkFixtureAdapter() {}

  public static RESTCatalogAdapter of(Catalog backend, Map<String, String> config, BooleanSupplier advertiseUnregister) {
    return new RESTServerCatalogAdapter(new RESTCatalogServer.CatalogContext(backend, config)) {
      @Override
      @SuppressWarnings("unchecked")
      public <T extends RESTResponse> T handleRequest(
          Route route, Map<String, String> vars, HTTPRequest httpRequest, Class<T> responseType,
          Consumer<Map<String, String>> responseHeaders) {
        T response = super.handleRequest(route, vars, httpRequest, responseType, responseHeaders);
        if (route == Route.CONFIG && advertiseUnregister.getAsBoolean() && response instanceof ConfigResponse config) {
          List<Endpoint> endpoints = new ArrayList<>(config.endpoints());
          endpoints.add(UNREGISTER);
          return (T) ConfigResponse.builder().withDefaults(config.defaults()).withOverrides(config.overrides())
              .withEndpoints(endpoints).build();
        }
        return response;
      }
    };
  }
}

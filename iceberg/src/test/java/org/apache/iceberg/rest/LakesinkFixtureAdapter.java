package org.apache.iceberg.rest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.responses.ConfigResponse;

/**
 * The iceberg-open-api test fixtures' REST adapter (the one {@code RESTCatalogServer} serves)
 * over a backend catalog, with the unregister route listed in {@code GET /v1/config} when {@code
 * advertiseUnregister} says so, and with {@code overrides: {prefix: <p>}} when {@code prefix} gives one (the
 * adapter itself routes only un-prefixed paths: RestCatalogServer's filter strips the prefix). In Iceberg's package: the fixture's classes are package-private.
 */
public final class LakesinkFixtureAdapter {
  /** The spec's unregister route, as a server lists it in {@code /v1/config}'s endpoints. */
  public static final Endpoint UNREGISTER = Endpoint.create("POST", ResourcePaths.V1_TABLE + "/unregister");

  private LakesinkFixtureAdapter() {}

  public static RESTCatalogAdapter of(
      Catalog backend, Map<String, String> config, BooleanSupplier advertiseUnregister, Supplier<String> prefix) {
    return new RESTServerCatalogAdapter(new RESTCatalogServer.CatalogContext(backend, config)) {
      @Override
      @SuppressWarnings("unchecked")
      public <T extends RESTResponse> T handleRequest(
          Route route, Map<String, String> vars, HTTPRequest httpRequest, Class<T> responseType,
          Consumer<Map<String, String>> responseHeaders) {
        T response = super.handleRequest(route, vars, httpRequest, responseType, responseHeaders);
        if (route == Route.CONFIG && response instanceof ConfigResponse config) {
          List<Endpoint> endpoints = new ArrayList<>(config.endpoints());
          if (advertiseUnregister.getAsBoolean()) {
            endpoints.add(UNREGISTER);
          }
          Map<String, String> overrides = new HashMap<>(config.overrides());
          String p = prefix.get();
          if (p != null) {
            overrides.put("prefix", p);
          }
          return (T) ConfigResponse.builder().withDefaults(config.defaults()).withOverrides(overrides)
              .withEndpoints(endpoints).build();
        }
        return response;
      }
    };
  }
}

package io.lakesink.connect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.lakesink.delivery.TableStatus;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.health.ConnectClusterState;

/**
 * The lakesink tasks running in this worker, their partitions and their tables' states. Written
 * as text with the plugin's own Jackson (Instants as ISO-8601, the standalone worker's field
 * names) rather than left to Connect's JSON provider, whose mapper the plugin does not control.
 * Nothing shown holds a secret: reasons and faults are lakesink's own messages, which never
 * carry one.
 */
@Path("/lakesink")
@Produces(MediaType.APPLICATION_JSON)
public final class StatusResource {
  private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).enable(SerializationFeature.INDENT_OUTPUT);

  private final ConnectClusterState cluster;

  /** Jersey makes one per request, with the worker's cluster state ({@link LakesinkRestExtension}). */
  @Inject
  public StatusResource(ConnectClusterState cluster) {
    this.cluster = cluster;
  }

  @GET
  @Path("/status")
  public String all() {
    return json(Map.of("tasks", RunningTasks.all().stream().map(StatusResource::task).toList()));
  }

  /** One connector's tasks on this worker; 404 when the cluster has no such connector. */
  @GET
  @Path("/connectors/{name}/status")
  public Response connector(@PathParam("name") String name) {
    if (!cluster.connectors().contains(name)) {
      Map<String, Object> error = new LinkedHashMap<>();
      error.put("error_code", 404);
      error.put("message", ConnectErrors.noSuchConnector(name));
      return Response.status(Response.Status.NOT_FOUND).type(MediaType.APPLICATION_JSON).entity(json(error)).build();
    }
    List<Map<String, Object>> tasks = RunningTasks.all().stream()
        .filter(t -> t.connector().equals(name)).map(StatusResource::task).toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("connector", name);
    body.put("tasks", tasks);
    return Response.ok(json(body), MediaType.APPLICATION_JSON).build();
  }

  private static Map<String, Object> task(TaskStatus t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("connector", t.connector());
    m.put("at", t.at());
    m.put("partitions", t.partitions());
    m.put("faults", t.faults());
    m.put("tables", t.tables().stream().map(TableStatus::fields).toList());
    return m;
  }

  private static String json(Object body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}

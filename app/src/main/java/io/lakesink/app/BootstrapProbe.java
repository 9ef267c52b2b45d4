package io.lakesink.app;

import io.lakesink.error.AddressProblem;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Utils;

/**
 * Opens (and closes) a plain TCP connection to each bootstrap address. Kafka's admin client
 * retries an address it cannot reach until its timeout and then only says "Timed out waiting for
 * a node assignment"; a connection attempt of our own tells a refused port from an unknown host
 * from silence, at once.
 */
final class BootstrapProbe {
  /** @param problems the addresses that could not be reached, and why */
  record Result(List<String> reachable, List<AddressProblem> problems) {}

  private BootstrapProbe() {}

  static Result probe(String bootstrapServers, Duration timeout) {
    List<String> reachable = new ArrayList<>();
    List<AddressProblem> problems = new ArrayList<>();
    for (String entry : bootstrapServers.split(",")) {
      String address = entry.strip();
      if (address.isEmpty()) {
        continue;
      }
      AddressProblem problem = connect(address, timeout);
      if (problem == null) {
        reachable.add(address);
      } else {
        problems.add(problem);
      }
    }
    return new Result(reachable, problems);
  }

  /** Null when some address of the host accepts the connection, as Kafka tries every address a name resolves to. */
  private static AddressProblem connect(String address, Duration timeout) {
    // Kafka's own parser: the same entries it accepts (host:port, [v6]:port, PROTOCOL://host:port).
    String host = Utils.getHost(address);
    Integer port = Utils.getPort(address);
    if (host == null || port == null || port > 65_535) {
      return new AddressProblem(address, AddressProblem.Kind.MALFORMED, null);
    }
    InetAddress[] resolved;
    try {
      resolved = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      return new AddressProblem(address, AddressProblem.Kind.UNKNOWN_HOST, null);
    }
    AddressProblem last = null;
    for (InetAddress ip : resolved) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(ip, port), (int) timeout.toMillis());
        return null;
      } catch (ConnectException e) {
        // "Connection refused" is the one ConnectException a port with no listener gives; others
        // ("No route to host" is a subclass, "Network is unreachable") keep their own words.
        boolean refused = e.getMessage() != null && e.getMessage().startsWith("Connection refused");
        last = new AddressProblem(address, refused ? AddressProblem.Kind.REFUSED : AddressProblem.Kind.OTHER, e.getMessage());
      } catch (SocketTimeoutException e) {
        last = new AddressProblem(address, AddressProblem.Kind.NO_ANSWER, seconds(timeout) + " s");
      } catch (IOException e) {
        last = new AddressProblem(address, AddressProblem.Kind.OTHER, String.valueOf(e.getMessage()));
      }
    }
    return last;
  }

  static long seconds(Duration timeout) {
    return Math.max(1, (timeout.toMillis() + 999) / 1000);
  }
}

package io.lakesink.error;

/**
 * Why one configured network address could not be reached, as far as a plain connection attempt
 * can tell; {@link Errors} words it.
 *
 * @param address as configured ({@code host:port})
 * @param detail how long {@link Kind#NO_ANSWER} waited ("10 s"), the system's own word for
 *     {@link Kind#OTHER} ("No route to host"), else null
 */
public record AddressProblem(String address, Kind kind, String detail) {
  public enum Kind {
    /** Not {@code host:port}. */
    MALFORMED,
    /** The host name does not resolve. */
    UNKNOWN_HOST,
    /** The host answered that nothing listens on the port. */
    REFUSED,
    /** Nothing answered within the timeout: a wrong address, or a firewall dropping packets. */
    NO_ANSWER,
    /** Anything else the network reported, in {@code detail}. */
    OTHER
  }
}

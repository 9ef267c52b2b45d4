package io.lakesink.iceberg.rest;

import io.lakesink.error.ConfigurationException;
import io.lakesink.error.LakesinkException;
import io.lakesink.error.RetryableException;
import io.lakesink.error.TableFailureException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.exceptions.ServiceFailureException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;

/**
 * The messages of lakesink's Iceberg REST catalogs, in lakesink's error taxonomy: the catalog is
 * down → retryable; the name holds another table → table failure; credentials, grants or
 * namespace wrong → configuration. Iceberg's own messages are kept (they carry the server's
 * reason) but never the secrets, which Iceberg does not put in them.
 */
final class IcebergRestErrors {
  private IcebergRestErrors() {}

  /** What went wrong while doing {@code what} (e.g. "register main.orders") against the catalog. */
  static LakesinkException translate(IcebergRestSettings catalog, String what, RuntimeException e) {
    if (e instanceof LakesinkException l) {
      return l;
    }
    String where = catalog.describe();
    if (e instanceof NotAuthorizedException) {
      return new ConfigurationException("The " + where + " refused lakesink's authentication (HTTP 401) to " + what + ": "
          + e.getMessage() + ". " + credentialsToFix(catalog), e);
    }
    if (e instanceof ForbiddenException) {
      return new ConfigurationException("The " + where + " does not allow lakesink to " + what + ": " + e.getMessage()
          + ". Grant lakesink's principal the right to create, load, register and drop tables in namespace "
          + catalog.namespace() + ".", e);
    }
    if (e instanceof NoSuchNamespaceException) {
      return new ConfigurationException("The " + where + " has no such namespace (" + what + "): " + e.getMessage()
          + ". Create the namespace in the catalog, or correct catalogs." + catalog.name() + ".namespace (or the"
          + " namespace of handoff --to).", e);
    }
    if (e instanceof BadRequestException) {
      return new ConfigurationException("The " + where + " rejected the request to " + what + " as invalid: "
          + e.getMessage() + ". Check catalogs." + catalog.name() + ".uri and warehouse.", e);
    }
    if (e instanceof ServiceUnavailableException || e instanceof ServiceFailureException || e instanceof RESTException
        || e instanceof CommitFailedException || e instanceof java.io.UncheckedIOException) {
      return new RetryableException("The " + where + " could not " + what + " now (" + e.getMessage()
          + "); lakesink tries again.", e);
    }
    return new RetryableException("The " + where + " failed to " + what + ": " + e + "; lakesink tries again.", e);
  }

  /** Which settings to fix when the catalog refuses who lakesink says it is. */
  private static String credentialsToFix(IcebergRestSettings catalog) {
    String at = "catalogs." + catalog.name() + ".";
    if (catalog.clientId() != null) {
      String endpoint = catalog.oauth2ServerUri() != null ? at + "oauth2_server_uri" : "the catalog's /v1/oauth/tokens";
      return "Check " + at + "client_id and " + at + "client_secret (sent to the token endpoint, " + endpoint + ") and "
          + at + "scope; when the catalog's tokens come from another server, set " + at + "oauth2_server_uri.";
    }
    if (catalog.token() != null) {
      return "Replace " + at + "token with a valid bearer token for this catalog (it may have expired), or use OAuth2"
          + " client credentials (" + at + "client_id and client_secret) so that lakesink fetches and refreshes tokens.";
    }
    return "The catalog requires authentication: set " + at + "client_id and client_secret (OAuth2 client credentials)"
        + " or " + at + "token (a bearer token).";
  }

  static TableFailureException nameTaken(IcebergRestSettings catalog, String entry, String theirs, String ours) {
    return new TableFailureException(
        "The " + catalog.describe() + " already has a table " + entry + " at " + theirs + ", not at " + ours
            + " (this table's location). lakesink never overwrites another table's entry. Drop or rename that"
            + " entry in the catalog if it is stale, or hand this table to another name"
            + " (`bin/lakesink handoff --to " + catalog.name() + ".<namespace>.<name>`).",
        null, null);
  }

  static ConfigurationException entryRemoved(IcebergRestSettings catalog, String entry, String table, String location) {
    return new ConfigurationException(
        "The " + catalog.describe() + " has no table " + entry + " any more, but table " + table + " at " + location
            + " records it as its registered owner: someone removed the entry, and lakesink does not create it again on"
            + " its own (that could make a second owner). Data keeps being written; the Iceberg metadata is not advanced."
            + " To bring the entry back, run `bin/lakesink register --config <config file> --table " + table + "`; to move"
            + " the table to another catalog, run `bin/lakesink handoff --config <config file> --table " + table
            + " --to <catalog>.<namespace>.<name>`.");
  }

  static ConfigurationException noNamespace(IcebergRestSettings catalog, String namespace) {
    return new ConfigurationException("The " + catalog.describe() + " has no namespace " + namespace
        + ": create it in the catalog, or name an existing one (catalogs." + catalog.name() + ".namespace, or the"
        + " namespace of handoff --to " + catalog.name() + ".<namespace>.<table>). Nothing was changed.");
  }

  static ConfigurationException badEntryName(IcebergRestSettings catalog, String entry) {
    return new ConfigurationException("An Iceberg REST catalog entry is named <namespace>.<table>, not '" + entry
        + "': write the destination as " + catalog.name() + ".<namespace>.<table> (e.g. " + catalog.name() + "."
        + catalog.namespace() + ".orders_APPEND).");
  }

  static RetryableException unregisterUnexpected(IcebergRestSettings catalog, String entry, int status) {
    return new RetryableException("The " + catalog.describe() + " answered HTTP " + status + " to unregistering " + entry
        + "; lakesink tries again (a hand-off resumes with the same command).", null);
  }
}

package io.lakesink.storage.azure;

import com.azure.core.exception.ClientAuthenticationException;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import com.microsoft.aad.msal4j.MsalException;
import com.microsoft.aad.msal4j.MsalServiceException;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.LakesinkException;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.azure.AzureStorageSettings.Auth;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns SDK failures into lakesink's taxonomy, with messages that say what to fix and never carry a
 * secret:
 *
 * <ul>
 *   <li>something the user must fix in the configuration or in Azure (wrong key or secret, missing
 *       container, missing role, firewall) → {@link ConfigurationException};
 *   <li>transient failures the SDK already retried (429, 5xx, timeouts, unreachable network) →
 *       {@link RetryableException};
 *   <li>a missing blob → {@link FileNotFoundException}; anything else → {@link IOException}.
 * </ul>
 *
 * <p>An unreachable endpoint is transient while the worker runs (a private endpoint's tunnel can
 * drop) but a configuration error in the connection test, where it almost always means a wrong
 * account name or endpoint.
 */
final class AzureErrors {
  private static final Pattern AADSTS = Pattern.compile("AADSTS(\\d+)");

  private final AzureTarget target;
  private final Redactor redactor;
  private final int maxTries;

  AzureErrors(AzureTarget target, Redactor redactor, int maxTries) {
    this.target = target;
    this.redactor = redactor;
    this.maxTries = maxTries;
  }

  Redactor redactor() {
    return redactor;
  }

  /** Put-if-absent lost: 409 BlobAlreadyExists (Azurite, PUT) or 412 ConditionNotMet (Azure). */
  static boolean isAlreadyExists(BlobStorageException e) {
    return e.getStatusCode() == 412
        || (e.getStatusCode() == 409 && BlobErrorCode.BLOB_ALREADY_EXISTS.equals(e.getErrorCode()));
  }

  /**
   * For a FileIO call: throws {@link ConfigurationException} or {@link RetryableException}, or
   * returns the {@link IOException} to throw.
   *
   * @param operation what was being done, e.g. "read", "write", "list"
   * @param path the path of the call (abfss form: no secret in it)
   */
  IOException translate(String operation, String path, RuntimeException e) {
    if (e instanceof BlobStorageException bse) {
      int status = bse.getStatusCode();
      if (status == 404 && !BlobErrorCode.CONTAINER_NOT_FOUND.equals(bse.getErrorCode())) {
        FileNotFoundException notFound = new FileNotFoundException(path);
        notFound.initCause(redactor.scrub(e));
        return notFound;
      }
    }
    LakesinkException classified = classify(operation, path, e, false);
    if (classified != null) {
      throw classified;
    }
    return new IOException(
        "Azure storage could not " + operation + " " + path + ": " + summary(e), redactor.scrub(e));
  }

  /** For the connection test: every failure is a configuration error unless it is transient. */
  LakesinkException connectionTest(String operation, String path, RuntimeException e) {
    LakesinkException classified = classify(operation, path, e, true);
    if (classified != null) {
      return classified;
    }
    return new ConfigurationException(
        "The connection test could not " + operation + " " + path + " in container '"
            + target.container() + "' of storage account '" + target.account() + "': " + summary(e),
        redactor.scrub(e));
  }

  private LakesinkException classify(
      String operation, String path, RuntimeException e, boolean connectionTest) {
    if (e instanceof BlobStorageException bse) {
      return classifyStatus(operation, path, bse);
    }
    Throwable network = networkCause(e);
    // azure-identity surfaces Entra's refusal as ClientAuthenticationException or, on the
    // synchronous path, as MSAL's own exception.
    Throwable auth = find(e, ClientAuthenticationException.class);
    if (auth == null) {
      auth = find(e, MsalException.class);
    }
    MsalServiceException entra = find(e, MsalServiceException.class);
    if (entra != null && (entra.statusCode() == 429 || entra.statusCode() >= 500)) {
      // Entra itself is throttling or unavailable: nothing to fix in the configuration.
      return retryable(operation, path, "Microsoft Entra ID answered HTTP " + entra.statusCode(), e);
    }
    if (auth != null && network == null) {
      return tokenRefused(auth);
    }
    if (network == null) {
      return null;
    }
    String what = describeNetwork(network);
    if (!connectionTest) {
      return retryable(operation, path, what, e);
    }
    if (auth != null) {
      return new ConfigurationException(
          "Cannot reach Microsoft Entra ID at " + target.authorityHost() + " to get a token for "
              + target.who() + " (" + what + "). Check storage.tenant_id"
              + " and storage.authority_host, and that this worker can reach the authority.",
          redactor.scrub(e));
    }
    return new ConfigurationException(
        "Cannot reach storage account '" + target.account() + "' at " + target.serviceUrl()
            + " (" + what + "). Check "
            + (target.auth() == Auth.SERVICE_PRINCIPAL
                ? "storage.account"
                : "the AccountName or BlobEndpoint of storage.connection_string")
            + (target.endpointOverridden()
                ? " and storage.endpoint, and that this worker can reach the endpoint."
                : ", and that this worker can reach " + target.serviceUrl() + "."),
        redactor.scrub(e));
  }

  private LakesinkException classifyStatus(String operation, String path, BlobStorageException e) {
    int status = e.getStatusCode();
    BlobErrorCode code = e.getErrorCode();
    String codeText = status + (code == null ? "" : " " + code);
    if (status == 404 && BlobErrorCode.CONTAINER_NOT_FOUND.equals(code)) {
      return new ConfigurationException(
          "Container '" + target.container() + "' does not exist in storage account '"
              + target.account() + "' (404 ContainerNotFound). lakesink never creates containers:"
              + " create it, or fix storage.container.",
          redactor.scrub(e));
    }
    if (status == 401 || (status == 403 && BlobErrorCode.AUTHENTICATION_FAILED.equals(code))) {
      return new ConfigurationException(badCredentials(codeText), redactor.scrub(e));
    }
    if (status == 403) {
      return new ConfigurationException(notAuthorized(operation, codeText, code), redactor.scrub(e));
    }
    if (status == 429 || status >= 500) {
      return retryable(operation, path, "HTTP " + codeText, e);
    }
    return null;
  }

  private String badCredentials(String codeText) {
    String where =
        target.endpointOverridden() ? " (requests go to storage.endpoint " + target.serviceUrl() + ")" : "";
    if (target.auth() == Auth.SERVICE_PRINCIPAL) {
      return "Storage account '" + target.account() + "' rejected the access token of "
          + target.who() + " (" + codeText + ")" + where + ". Check that storage.tenant_id is the"
          + " tenant the storage account belongs to and that storage.account is right.";
    }
    return "Storage account '" + target.account() + "' rejected " + target.who() + " ("
        + codeText + ")" + where + ": it is wrong, rotated or expired. Copy a current connection"
        + " string from Azure Portal → Storage account → Security + networking → Access keys.";
  }

  private String notAuthorized(String operation, String codeText, BlobErrorCode code) {
    String scope = " " + operation + " in container '" + target.container() + "' of storage account '"
        + target.account() + "' (" + codeText + "). ";
    boolean network =
        BlobErrorCode.AUTHORIZATION_FAILURE.equals(code)
            || BlobErrorCode.AUTHORIZATION_SOURCE_IPMISMATCH.equals(code);
    String networkHint =
        network
            ? " If the account restricts network access (Networking → Firewalls and virtual"
                + " networks), allow this worker's network, or reach the account through a private"
                + " endpoint set in storage.endpoint."
            : "";
    if (target.auth() == Auth.SERVICE_PRINCIPAL) {
      return "Service principal " + target.clientId() + " may not" + scope
          + "Assign it the 'Storage Blob Data Contributor' role on the storage account or the"
          + " container (Access control (IAM) → Add role assignment); a new assignment can take a"
          + " few minutes to apply." + networkHint;
    }
    String permissions =
        "A SAS needs read, add, create, write, delete and list permissions on the container.";
    if (BlobErrorCode.AUTHORIZATION_FAILURE.equals(code) || code == null) {
      // Azure's generic refusal (Azurite also uses it for a bad signature): name every cause.
      return "Storage account '" + target.account() + "' did not let " + target.who() + " "
          + operation + " in container '" + target.container() + "' (" + codeText + "). The key or SAS may be wrong, rotated or expired: copy a current connection"
          + " string from Azure Portal → Storage account → Security + networking → Access keys. "
          + permissions + networkHint;
    }
    if (BlobErrorCode.AUTHORIZATION_SOURCE_IPMISMATCH.equals(code)) {
      return "Storage account '" + target.account() + "' did not let this worker's address "
          + operation + " in container '" + target.container() + "' (" + codeText + ")."
          + networkHint;
    }
    return "The " + target.credential() + " of storage.connection_string may not" + scope
        + ("SAS token".equals(target.credential())
            ? permissions + " Or use a connection string with the account key."
            : "The account may disallow shared key access; then use a service principal (Option"
                + " B).");
  }

  private ConfigurationException tokenRefused(Throwable e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    Matcher m = AADSTS.matcher(message);
    String code = m.find() ? m.group() : null;
    String hint =
        switch (code == null ? "" : code) {
          case "AADSTS7000215" -> "the client secret is wrong: check storage.client_secret (the"
              + " secret's value, not its ID).";
          case "AADSTS7000222" -> "the client secret has expired: create a new one under App"
              + " registrations → Certificates & secrets and set storage.client_secret.";
          case "AADSTS700016" -> "no application with this client id in the tenant: check"
              + " storage.client_id and storage.tenant_id.";
          case "AADSTS90002", "AADSTS900023" -> "the tenant does not exist: check"
              + " storage.tenant_id.";
          default -> "check storage.client_secret (it may have expired: create a new one under"
              + " App registrations → Certificates & secrets), storage.client_id and"
              + " storage.tenant_id.";
        };
    return new ConfigurationException(
        "Microsoft Entra ID refused a token to " + target.who() + " for storage account '"
            + target.account() + "'" + (code == null ? "" : " (" + code + ")") + ": " + hint,
        redactor.scrub(e));
  }

  private RetryableException retryable(String operation, String path, String what, Throwable e) {
    return new RetryableException(
        "Azure storage could not " + operation + " " + path + " after " + maxTries + " tries ("
            + what + "); the operation can be retried.",
        redactor.scrub(e));
  }

  private String describeNetwork(Throwable network) {
    if (network instanceof UnknownHostException) {
      return "host not found: " + redactor.redact(network.getMessage());
    }
    if (network instanceof ConnectException || network instanceof NoRouteToHostException) {
      return "connection refused: " + redactor.redact(network.getMessage());
    }
    if (network instanceof TimeoutException || network.getClass().getSimpleName().contains("Timeout")) {
      return "timed out";
    }
    return network.getClass().getSimpleName() + ": " + redactor.redact(truncate(String.valueOf(network.getMessage())));
  }

  /** Short, redacted description of a failure for a message. */
  private String summary(Throwable e) {
    if (e instanceof BlobStorageException bse) {
      String service = bse.getServiceMessage();
      String firstLine = service == null ? "" : service.lines().findFirst().orElse("");
      return "HTTP " + bse.getStatusCode()
          + (bse.getErrorCode() == null ? "" : " " + bse.getErrorCode())
          + (firstLine.isEmpty() ? "" : ": " + redactor.redact(truncate(firstLine)));
    }
    return e.getClass().getSimpleName()
        + (e.getMessage() == null ? "" : ": " + redactor.redact(truncate(e.getMessage())));
  }

  /** The first I/O or timeout failure in the cause chain: what the SDK retries, then gives up on. */
  private static Throwable networkCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException || t instanceof TimeoutException) {
        // The most specific cause says more (e.g. UnknownHostException under a wrapper).
        Throwable deeper = networkCause(t.getCause());
        return deeper != null ? deeper : t;
      }
      if (t.getCause() == t) break;
    }
    return null;
  }

  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) return type.cast(t);
      if (t.getCause() == t) break;
    }
    return null;
  }

  private static String truncate(String s) {
    return s.length() <= 300 ? s : s.substring(0, 300) + "…";
  }
}

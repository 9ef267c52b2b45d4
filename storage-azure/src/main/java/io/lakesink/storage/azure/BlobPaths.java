package io.lakesink.storage.azure;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Maps between the paths Kernel, readers and catalogs see and blob names in the container.
 *
 * <p>Paths are {@code abfss://<container>@<account>.dfs.<suffix>/<name>}, the form Spark,
 * Databricks and Unity Catalog use for ADLS Gen2. Also accepted: {@code abfs://}, {@code
 * wasb[s]://container@account.blob.<suffix>/name}, and blob URLs ({@code
 * https://<account>.blob.<suffix>/<container>/<name>} or under the configured service URL).
 *
 * <p>Like Hadoop paths, the abfs/wasb forms are not percent-decoded: Delta partition directories
 * such as {@code ts=2024-01-01 00%3A00%3A00} are blob names with a literal {@code %3A}. Only the
 * http(s) URL form is decoded, because it is a URL.
 */
final class BlobPaths {
  private final AzureTarget target;

  BlobPaths(AzureTarget target) {
    this.target = target;
  }

  /** The path form of a blob name. */
  String uri(String blobName) {
    return "abfss://" + target.container() + "@" + target.dfsHost() + "/" + blobName;
  }

  /** Blob name of a table root: {@code <prefix>/<table>}. */
  String tableName(String table) {
    if (table == null || table.isEmpty() || table.contains("/") || table.equals(".") || table.equals("..")) {
      throw new IllegalArgumentException("Not a table name (one path segment): " + table);
    }
    return target.prefix().isEmpty() ? table : target.prefix() + "/" + table;
  }

  /** A blob name inside the prefix, e.g. for the connection test file. */
  String underPrefix(String name) {
    return target.prefix().isEmpty() ? name : target.prefix() + "/" + name;
  }

  /**
   * The blob name a path refers to, normalized: no leading, trailing or repeated slashes.
   *
   * @throws IllegalArgumentException if the path is not in the configured account and container
   */
  String blobName(String path) {
    int schemeEnd = path.indexOf("://");
    if (schemeEnd < 0) {
      throw new IllegalArgumentException("Not an Azure path (no scheme): " + path);
    }
    String scheme = path.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    String rest = path.substring(schemeEnd + 3);
    return switch (scheme) {
      case "abfss", "abfs", "wasbs", "wasb" -> fromHadoopForm(path, rest);
      case "https", "http" -> fromUrl(path);
      default -> throw new IllegalArgumentException("Not an Azure path: " + path);
    };
  }

  private String fromHadoopForm(String path, String rest) {
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    String name = slash < 0 ? "" : rest.substring(slash + 1);
    int at = authority.indexOf('@');
    if (at < 0) {
      throw new IllegalArgumentException("Azure path without container@account: " + path);
    }
    String container = authority.substring(0, at);
    String host = authority.substring(at + 1);
    int dot = host.indexOf('.');
    String account = dot < 0 ? host : host.substring(0, dot);
    checkOurs(path, account, container);
    return normalize(name);
  }

  private String fromUrl(String path) {
    String service = target.serviceUrl() + "/";
    String afterService;
    if (path.startsWith(service)) {
      afterService = path.substring(service.length());
    } else {
      String rest = path.substring(path.indexOf("://") + 3);
      int slash = rest.indexOf('/');
      String host = slash < 0 ? rest : rest.substring(0, slash);
      String account = host.contains(".") ? host.substring(0, host.indexOf('.')) : host;
      if (!host.startsWith(account + ".blob.") && !host.startsWith(account + ".dfs.")) {
        throw new IllegalArgumentException("Not a blob URL of this storage account: " + path);
      }
      checkOurs(path, account, target.container());
      afterService = slash < 0 ? "" : rest.substring(slash + 1);
    }
    afterService = decode(stripQuery(afterService));
    int slash = afterService.indexOf('/');
    String container = slash < 0 ? afterService : afterService.substring(0, slash);
    checkOurs(path, target.account(), container);
    return normalize(slash < 0 ? "" : afterService.substring(slash + 1));
  }

  private void checkOurs(String path, String account, String container) {
    if (!account.equals(target.account()) || !container.equals(target.container())) {
      throw new IllegalArgumentException(
          "Path " + path + " is outside container '" + target.container() + "' of storage account '"
              + target.account() + "': lakesink only reads and writes the configured container.");
    }
  }

  private static String normalize(String name) {
    return name.replaceAll("/{2,}", "/").replaceAll("^/+|/+$", "");
  }

  private static String stripQuery(String s) {
    int q = s.indexOf('?');
    return q < 0 ? s : s.substring(0, q);
  }

  /** Percent-decoding of a URL path; unlike URLDecoder, '+' stays '+'. */
  private static String decode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int i = 0;
    while (i < s.length()) {
      if (s.charAt(i) == '%' && i + 2 < s.length()) {
        out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 3;
      } else {
        int codePoint = s.codePointAt(i);
        out.writeBytes(new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8));
        i += Character.charCount(codePoint);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}

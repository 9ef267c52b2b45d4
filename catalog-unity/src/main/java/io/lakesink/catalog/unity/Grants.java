package io.lakesink.catalog.unity;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The privileges lakesink needs, and the exact GRANT statement that gives each one. Privilege
 * names stay strings (as Unity Catalog spells them, with underscores) so that names this code
 * does not know are neither dropped nor misread.
 */
final class Grants {
  static final String USE_CATALOG = "USE_CATALOG";
  static final String USE_SCHEMA = "USE_SCHEMA";
  static final String CREATE_EXTERNAL_TABLE = "CREATE_EXTERNAL_TABLE";
  static final String EXTERNAL_USE_SCHEMA = "EXTERNAL_USE_SCHEMA";
  static final String ALL_PRIVILEGES = "ALL_PRIVILEGES";

  /** Needed on the catalog. */
  static final List<String> ON_CATALOG = List.of(USE_CATALOG);
  /** Needed on the schema. The EXTERNAL_USE_* grants are never implied by ownership. */
  static final List<String> ON_SCHEMA = List.of(USE_SCHEMA, CREATE_EXTERNAL_TABLE, EXTERNAL_USE_SCHEMA);

  /**
   * Privileges a 403 message may name, longest first so that {@code EXTERNAL USE SCHEMA} is not
   * read as {@code USE SCHEMA}.
   */
  private static final List<String> NAMED_IN_MESSAGES =
      List.of(
          "CREATE EXTERNAL TABLE", "EXTERNAL USE SCHEMA", "EXTERNAL USE LOCATION", "CREATE EXTERNAL VOLUME",
          "CREATE MATERIALIZED VIEW", "READ FILES", "WRITE FILES", "CREATE TABLE", "USE CATALOG", "USE SCHEMA",
          "MANAGE", "MODIFY", "SELECT");

  private static final String TYPES = "(catalog|schema|table|external location|storage credential)";
  private static final Pattern QUOTED_SECURABLE =
      Pattern.compile("\\bon\\s+" + TYPES + "\\s+['`\"]([^'`\"]+)['`\"]", Pattern.CASE_INSENSITIVE);
  private static final Pattern BARE_SECURABLE =
      Pattern.compile("\\bon\\s+" + TYPES + "\\s+([^\\s'`\"]+)", Pattern.CASE_INSENSITIVE);

  private Grants() {}

  /**
   * One privilege on one securable.
   *
   * @param privilege Unity Catalog spelling, e.g. {@code CREATE_EXTERNAL_TABLE}
   * @param securableType SQL spelling, e.g. {@code SCHEMA}
   * @param securable the object's name as it goes into SQL, e.g. {@code main.bronze}
   */
  record Grant(String privilege, String securableType, String securable) {
    String privilegeSql() {
      return privilege.replace('_', ' ');
    }

    String on() {
      return securableType + " " + securable;
    }

    /** e.g. {@code GRANT CREATE EXTERNAL TABLE ON SCHEMA main.bronze TO `0c6a…`;} */
    String statement(String principal) {
      return "GRANT " + privilegeSql() + " ON " + on() + " TO `" + principal.replace("`", "``") + "`;";
    }
  }

  static Grant onCatalog(String privilege, String catalog) {
    return new Grant(privilege, "CATALOG", quote(catalog));
  }

  static Grant onSchema(String privilege, String catalog, String schema) {
    return new Grant(privilege, "SCHEMA", quote(catalog) + "." + quote(schema));
  }

  /**
   * The grant a 403 message asks for ("User does not have CREATE EXTERNAL TABLE on Schema
   * 'main.bronze'"), or {@code fallback} when the message names no privilege we recognise.
   */
  static Grant fromDenial(String message, Grant fallback) {
    // Databricks writes privileges in capitals; matching case keeps ordinary words ("select") out.
    String text = message.replace('_', ' ');
    Optional<String> privilege = NAMED_IN_MESSAGES.stream().filter(text::contains).findFirst();
    if (privilege.isEmpty()) {
      return fallback;
    }
    String name = privilege.get().replace(' ', '_');
    Matcher m = QUOTED_SECURABLE.matcher(message);
    if (!m.find()) {
      m = BARE_SECURABLE.matcher(message);
    }
    if (m.find(0)) {
      String type = m.group(1).toUpperCase(Locale.ROOT);
      String object = m.group(2).replaceAll("[.,;:]+$", "");
      String sqlName =
          type.equals("EXTERNAL LOCATION") || type.equals("STORAGE CREDENTIAL") ? quote(object) : quoteDotted(object);
      return new Grant(name, type, sqlName);
    }
    return new Grant(name, fallback.securableType(), fallback.securable());
  }

  /** An identifier for SQL: bare when plain, else in backticks (backticks inside doubled). */
  static String quote(String name) {
    return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "`" + name.replace("`", "``") + "`";
  }

  private static String quoteDotted(String name) {
    String[] parts = name.split("\\.");
    StringBuilder s = new StringBuilder();
    for (String part : parts) {
      if (s.length() > 0) {
        s.append('.');
      }
      s.append(quote(part));
    }
    return s.toString();
  }
}

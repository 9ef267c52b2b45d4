package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.event.Column;
import io.lakesink.event.ColumnType;
import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnsAndMessagesTest {

  @Test
  void sparkJsonNamesDifferFromSqlForIntAndBigint() {
    assertEquals("integer", SparkTypes.jsonType(ColumnType.INT));
    assertEquals("long", SparkTypes.jsonType(ColumnType.BIGINT));
    assertEquals("decimal(38,9)", SparkTypes.jsonType(ColumnType.decimal(38, 9)));
    for (ColumnType t : List.of(ColumnType.BOOLEAN, ColumnType.FLOAT, ColumnType.DOUBLE, ColumnType.DATE, ColumnType.TIMESTAMP, ColumnType.STRING)) {
      assertEquals(t.sqlName(), SparkTypes.jsonType(t));
    }
    assertEquals(
        "{\"name\":\"amount\",\"type\":\"decimal(10,2)\",\"nullable\":true,\"metadata\":{}}",
        SparkTypes.structField(new Column("amount", ColumnType.decimal(10, 2))));
  }

  @Test
  void registeredTypesAreReadFromTextOrName() {
    assertEquals("bigint", SparkTypes.sqlText("BIGINT", null, 0, 0));
    assertEquals("int", SparkTypes.sqlText("integer", null, 0, 0));
    assertEquals("decimal(10,2)", SparkTypes.sqlText("decimal(10, 2)", null, 0, 0));
    assertEquals("decimal(10,2)", SparkTypes.sqlText(null, "DECIMAL", 10, 2));
    assertEquals("bigint", SparkTypes.sqlText(null, "LONG", 0, 0));
    assertEquals(null, SparkTypes.sqlText(null, null, 0, 0));
  }

  @Test
  void columnComparison() {
    List<RegisteredColumn> ours = List.of(new RegisteredColumn("id", "bigint", null), new RegisteredColumn("d", "date", 0));
    assertEquals(ColumnDiff.Verdict.UP_TO_DATE, ColumnDiff.compare(ours, ours).verdict());
    // The catalog may not report partition indexes or types: not a reason to re-register.
    List<RegisteredColumn> sparse = List.of(new RegisteredColumn("ID", null, null), new RegisteredColumn("d", "date", null));
    assertEquals(ColumnDiff.Verdict.UP_TO_DATE, ColumnDiff.compare(ours, sparse).verdict());
    List<RegisteredColumn> retyped = List.of(new RegisteredColumn("id", "int", null), new RegisteredColumn("d", "date", 0));
    ColumnDiff diff = ColumnDiff.compare(ours, retyped);
    assertEquals(ColumnDiff.Verdict.STALE, diff.verdict());
    assertTrue(diff.description().contains("id is int in the catalog, bigint in the table"), diff.description());
    ColumnDiff added = ColumnDiff.compare(ours, ours.subList(0, 1));
    assertEquals(ColumnDiff.Verdict.STALE, added.verdict());
    assertTrue(added.description().contains("new column(s) d date"), added.description());
    assertEquals(ColumnDiff.Verdict.STALE, ColumnDiff.compare(ours, List.of()).verdict());
  }

  @Test
  void locationsCompareWithoutTrailingSlashesOrSchemeCase() {
    assertEquals(TableRegistrar.normalize("abfss://c@a.dfs.core.windows.net/x"), TableRegistrar.normalize("ABFSS://c@a.dfs.core.windows.net/x/"));
    assertEquals(TableRegistrar.normalize("file:/data/t"), TableRegistrar.normalize("file:///data/t/"));
    assertFalse(TableRegistrar.normalize("abfss://c@a.dfs.core.windows.net/x").equals(TableRegistrar.normalize("abfss://c@a.dfs.core.windows.net/y")));
  }

  @Test
  void grantsComeFromTheDenialMessage() {
    Grants.Grant fallback = Grants.onSchema(Grants.CREATE_EXTERNAL_TABLE, "main", "bronze");
    assertEquals(
        "GRANT EXTERNAL USE SCHEMA ON SCHEMA main.bronze TO `sp`;",
        Grants.fromDenial("User does not have EXTERNAL USE SCHEMA on Schema 'main.bronze'.", fallback).statement("sp"));
    assertEquals(
        "GRANT USE CATALOG ON CATALOG `my-cat` TO `sp`;",
        Grants.fromDenial("PERMISSION_DENIED: User does not have USE_CATALOG on Catalog 'my-cat'.", fallback).statement("sp"));
    assertEquals(
        "GRANT CREATE EXTERNAL TABLE ON EXTERNAL LOCATION lake_loc TO `sp`;",
        Grants.fromDenial("User does not have CREATE EXTERNAL TABLE on External Location 'lake_loc'.", fallback).statement("sp"));
    assertEquals(
        "GRANT CREATE EXTERNAL TABLE ON SCHEMA main.bronze TO `sp`;",
        Grants.fromDenial("Access denied, please select another table", fallback).statement("sp"));
  }

  @Test
  void externalAccessDisabledIsRecognisedWhereverItIsSaid() {
    Redactor r = new Redactor("id", "s3cr3t");
    assertTrue(ApiError.parse(403, "{\"error_code\":\"EXTERNAL_ACCESS_DISABLED_ON_METASTORE\",\"message\":\"no\"}", r).externalAccessDisabled());
    assertTrue(ApiError.parse(403, "{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no\",\"details\":[{\"reason\":\"EXTERNAL_ACCESS_DISABLED_ON_METASTORE\"}]}", r).externalAccessDisabled());
    assertTrue(ApiError.parse(403, "{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"External Data Access from non Databricks Compute environment is disabled for metastore m\"}", r).externalAccessDisabled());
    assertFalse(ApiError.parse(403, "{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"User does not have USE SCHEMA\"}", r).externalAccessDisabled());
  }

  @Test
  void serverTextIsScrubbedAndNonJsonBodiesAreKeptShort() {
    Redactor r = new Redactor("id", "s3cr3t");
    r.addToken("tok123");
    ApiError e = ApiError.parse(400, "{\"error_code\":\"BAD\",\"message\":\"echo s3cr3t and tok123\"}", r);
    assertEquals("echo *** and ***", e.message());
    ApiError html = ApiError.parse(502, "<html>" + "x".repeat(500) + "</html>", r);
    assertTrue(html.summary().length() < 230, html.summary());
  }
}

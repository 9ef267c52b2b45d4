package io.lakesink.catalog.unity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UnitySettingsTest {
  private static final String URL = "https://adb-1234567890123456.7.azuredatabricks.net";
  private static final String ID = "0c6a3b5e-2f1d-4e8a-9b7c-1d2e3f4a5b6c";
  private static final String SECRET = "dose7f3a9b2c4d5e6f708192a3b4c5d6e7f8";

  private static String failure(Runnable r) {
    return assertThrows(ConfigurationException.class, r::run).getMessage();
  }

  private static Map<String, Object> yaml() {
    Map<String, Object> m = new HashMap<>();
    m.put("type", "unity");
    m.put("workspace_url", URL + "/");
    m.put("client_id", ID);
    m.put("client_secret", SECRET);
    m.put("catalog", "main");
    m.put("schema", "bronze");
    return m;
  }

  @Test
  void readsTheKeysUsersWrite() {
    UnitySettings s = UnitySettings.fromConfig(yaml());
    assertEquals(URL, s.workspaceUrl());
    assertEquals(ID, s.clientId());
    assertEquals("main", s.catalog());
    assertEquals("bronze", s.schema());
    assertTrue(s.authenticated());
    Map<String, String> strings = new HashMap<>();
    yaml().forEach((k, v) -> strings.put(k, String.valueOf(v)));
    assertEquals(s, UnitySettings.fromConfig(strings));
  }

  @Test
  void toStringNeverShowsTheSecret() {
    UnitySettings s = UnitySettings.fromConfig(yaml());
    assertFalse(s.toString().contains(SECRET), s.toString());
    assertTrue(s.toString().contains(ID), s.toString());
  }

  @Test
  void missingKeysAreNamed() {
    Map<String, Object> m = yaml();
    m.remove("client_secret");
    assertTrue(failure(() -> UnitySettings.fromConfig(m)).contains("catalog.client_secret"));
    m.remove("schema");
    String both = failure(() -> UnitySettings.fromConfig(m));
    assertTrue(both.contains("catalog.client_secret") && both.contains("catalog.schema"), both);
  }

  @Test
  void unknownKeysAndOtherTypesAreRefused() {
    Map<String, Object> m = yaml();
    m.put("client_secrt", "x");
    assertTrue(failure(() -> UnitySettings.fromConfig(m)).contains("catalog.client_secrt"));
    Map<String, Object> other = yaml();
    other.put("type", "iceberg");
    assertTrue(failure(() -> UnitySettings.fromConfig(other)).contains("catalog.type"));
  }

  @Test
  void aPersonalAccessTokenIsRefusedWithTheReason() {
    Map<String, Object> m = yaml();
    String pat = "dapi0123456789abcdef0123456789abcdef-3";
    m.put("client_secret", pat);
    String message = failure(() -> UnitySettings.fromConfig(m));
    assertTrue(message.contains("catalog.client_secret"), message);
    assertTrue(message.contains("personal access token"), message);
    assertTrue(message.contains("deprecates"), message);
    assertTrue(message.contains("service principal"), message);
    assertFalse(message.contains(pat), message);
  }

  @Test
  void workspaceUrlShapes() {
    assertTrue(failure(() -> UnitySettings.servicePrincipal("http://adb-1.azuredatabricks.net", ID, SECRET, "main", "b")).contains("https://adb-1.azuredatabricks.net"));
    assertTrue(failure(() -> UnitySettings.servicePrincipal(URL + "/?o=123#setting", ID, SECRET, "main", "b")).contains("use only the workspace root: " + URL));
    assertTrue(failure(() -> UnitySettings.servicePrincipal("adb-1.azuredatabricks.net", ID, SECRET, "main", "b")).contains("catalog.workspace_url"));
    assertTrue(failure(() -> UnitySettings.servicePrincipal("https://user:" + SECRET + "@adb-1.net", ID, SECRET, "main", "b")).contains("catalog.workspace_url"));
    assertFalse(failure(() -> UnitySettings.servicePrincipal("https://user:" + SECRET + "@adb-1.net", ID, SECRET, "main", "b")).contains(SECRET));
    // A tunnel or a local server: http stays on this machine.
    UnitySettings.servicePrincipal("http://localhost:8443", ID, SECRET, "main", "b");
  }

  @Test
  void namesUnityCatalogCannotHoldAreRefused() {
    assertTrue(failure(() -> UnitySettings.servicePrincipal(URL, ID, SECRET, "main.x", "b")).contains("catalog.catalog"));
    assertTrue(failure(() -> UnitySettings.servicePrincipal(URL, ID, SECRET, "main", "my schema")).contains("catalog.schema"));
  }

  @Test
  void theUnauthenticatedFlagIsOnlyForALocalServer() {
    Map<String, Object> m = new HashMap<>();
    m.put("type", "unity");
    m.put("workspace_url", "http://localhost:8080");
    m.put("catalog", "unity");
    m.put("schema", "default");
    m.put("allow_unauthenticated_local_server", true);
    UnitySettings s = UnitySettings.fromConfig(m);
    assertFalse(s.authenticated());

    m.put("workspace_url", URL);
    assertTrue(failure(() -> UnitySettings.fromConfig(m)).contains("catalog.allow_unauthenticated_local_server"));
    m.put("workspace_url", "http://10.0.0.5:8080");
    assertTrue(failure(() -> UnitySettings.fromConfig(m)).contains("http://localhost"));
    m.put("workspace_url", "http://127.0.0.1:8080");
    m.put("client_id", ID);
    assertTrue(failure(() -> UnitySettings.fromConfig(m)).contains("cannot be combined"));
    m.remove("client_id");
    m.put("allow_unauthenticated_local_server", "yes");
    assertTrue(failure(() -> UnitySettings.fromConfig(m)).contains("use true or false"));
  }
}

package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lakesink.error.ConfigurationException;
import io.lakesink.storage.azure.AzureStorageSettings.Auth;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AzureStorageSettingsTest {
  private static final String KEY = "c2VjcmV0LWFjY291bnQta2V5LWZvci10ZXN0cy0xMjM0NTY3ODkw";
  private static final String CS =
      "DefaultEndpointsProtocol=https;AccountName=myaccount;AccountKey=" + KEY + ";EndpointSuffix=core.windows.net";
  private static final String TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
  private static final String CLIENT = "0c6a3b5e-2f1d-4e8a-9b7c-1d2e3f4a5b6c";
  private static final String SECRET = "client~secret.value-123456";

  private static String failure(Runnable r) {
    return assertThrows(ConfigurationException.class, r::run).getMessage();
  }

  @Test
  void connectionStringOption() {
    AzureStorageSettings s = AzureStorageSettings.connectionString("lake", CS);
    assertEquals(Auth.CONNECTION_STRING, s.auth());
    assertEquals("lakesink", s.prefix());
    assertEquals("myaccount", s.accountName());
    assertFalse(s.toString().contains(KEY), s.toString());
    assertTrue(s.toString().contains("myaccount"), s.toString());
  }

  @Test
  void servicePrincipalOption() {
    AzureStorageSettings s =
        AzureStorageSettings.servicePrincipal("lake", "myaccount", TENANT, CLIENT, SECRET)
            .withPrefix("/teams/sales/");
    assertEquals(Auth.SERVICE_PRINCIPAL, s.auth());
    assertEquals("teams/sales", s.prefix());
    assertFalse(s.toString().contains(SECRET), s.toString());
    assertEquals("", s.withPrefix("/").prefix());
  }

  @Test
  void fromConfigReadsTheKeysUsersWrite() {
    Map<String, Object> yaml = new HashMap<>();
    yaml.put("type", "azure");
    yaml.put("container", "lake");
    yaml.put("account", "myaccount");
    yaml.put("tenant_id", TENANT);
    yaml.put("client_id", CLIENT);
    yaml.put("client_secret", SECRET);
    yaml.put("endpoint", "https://myaccount.privatelink.blob.core.windows.net/");
    AzureStorageSettings s = AzureStorageSettings.fromConfig(yaml);
    assertEquals("https://myaccount.privatelink.blob.core.windows.net", s.endpoint());
    assertNull(s.connectionString());

    yaml.put("client_secrt", "typo");
    assertTrue(failure(() -> AzureStorageSettings.fromConfig(yaml)).contains("storage.client_secrt"));
  }

  @Test
  void messagesNameTheKeyToChange() {
    assertTrue(failure(() -> AzureStorageSettings.connectionString(null, CS)).contains("storage.container"));
    assertTrue(failure(() -> AzureStorageSettings.connectionString("Bad_Name", CS)).contains("storage.container"));
    assertTrue(
        failure(() -> new AzureStorageSettings("lake", null, null, null, null, null, null, null, null))
            .contains("storage.connection_string"));
    String partial =
        failure(() -> new AzureStorageSettings("lake", null, null, "myaccount", TENANT, null, null, null, null));
    assertTrue(partial.contains("storage.client_id") && partial.contains("storage.client_secret"), partial);
    assertTrue(
        failure(() -> new AzureStorageSettings("lake", null, CS, null, TENANT, CLIENT, SECRET, null, null))
            .contains("cannot be combined"));
    assertTrue(
        failure(() -> AzureStorageSettings.servicePrincipal("lake", "My-Account", TENANT, CLIENT, SECRET))
            .contains("storage.account"));
    assertTrue(
        failure(() -> AzureStorageSettings.servicePrincipal("lake", "myaccount", TENANT, "not-a-guid", SECRET))
            .contains("storage.client_id"));
    assertTrue(
        failure(() -> new AzureStorageSettings("lake", null, CS, "otheraccount", null, null, null, null, null))
            .contains("storage.account"));
  }

  @Test
  void connectionStringProblemsNeverEchoTheString() {
    String noKey = "DefaultEndpointsProtocol=https;AccountName=myaccount;EndpointSuffix=core.windows.net";
    assertTrue(failure(() -> AzureStorageSettings.connectionString("lake", noKey)).contains("AccountKey"));
    String garbage = "this is " + KEY;
    String message = failure(() -> AzureStorageSettings.connectionString("lake", garbage));
    assertTrue(message.contains("storage.connection_string"), message);
    assertFalse(message.contains(KEY), message);
    String badKey = "AccountName=myaccount;AccountKey=%%%not-base64" + KEY;
    String m2 = failure(() -> AzureStorageSettings.connectionString("lake", badKey));
    assertFalse(m2.contains(KEY), m2);
  }

  @Test
  void endpointShapes() {
    AzureStorageSettings cs = AzureStorageSettings.connectionString("lake", CS);
    cs.withEndpoint("https://myaccount.privatelink.blob.core.windows.net");
    AzureStorageSettings.connectionStringOverHttp("lake", CS).withEndpoint("http://127.0.0.1:10000/myaccount");
    assertTrue(failure(() -> cs.withEndpoint("https://host.example/myaccount")).contains("without a path"));
    assertTrue(failure(() -> cs.withEndpoint("https://host.example:8443")).contains("https://host.example:8443/myaccount"));
    assertTrue(failure(() -> cs.withEndpoint("https://host.example?sig=abc")).contains("storage.endpoint"));
    assertTrue(failure(() -> cs.withEndpoint("ftp://host.example")).contains("storage.endpoint"));
    AzureStorageSettings spn = AzureStorageSettings.servicePrincipal("lake", "myaccount", TENANT, CLIENT, SECRET);
    assertTrue(failure(() -> spn.withEndpoint("http://10.0.0.5")).contains("https"));
    assertTrue(failure(() -> spn.withAuthorityHost("http://login.example")).contains("storage.authority_host"));
    assertTrue(failure(() -> cs.withAuthorityHost("https://login.example")).contains("service principal"));
  }

  /** Fails on the old code, which accepted every one of these without a word. */
  @Test
  void plainHttpNeedsTheExplicitOptIn() {
    String[] insecure = {
      "DefaultEndpointsProtocol=http;AccountName=myaccount;AccountKey=" + KEY + ";EndpointSuffix=core.windows.net",
      "BlobEndpoint=http://sasaccount.blob.core.windows.net/;SharedAccessSignature=sv=2024&sig=abcdefgh",
      "DefaultEndpointsProtocol=https;AccountName=myaccount;AccountKey=" + KEY + ";BlobEndpoint=http://10.0.0.5:10000/myaccount",
      "UseDevelopmentStorage=true",
    };
    for (String cs : insecure) {
      String message = failure(() -> AzureStorageSettings.connectionString("lake", cs));
      assertTrue(message.contains("storage.connection_string uses plain http") && message.contains("storage.allow_insecure_http: true"), message);
      assertFalse(message.contains(KEY) || message.contains("abcdefgh"), message);
      assertTrue(AzureStorageSettings.connectionStringOverHttp("lake", cs).allowInsecureHttp());
    }
    String endpoint = failure(() -> AzureStorageSettings.connectionString("lake", CS).withEndpoint("http://10.0.0.5"));
    assertTrue(endpoint.contains("storage.endpoint is a plain http URL"), endpoint);

    Map<String, Object> yaml = new HashMap<>(Map.of("type", "azure", "container", "lake", "connection_string", insecure[0]));
    assertTrue(failure(() -> AzureStorageSettings.fromConfig(yaml)).contains("storage.allow_insecure_http"));
    yaml.put("allow_insecure_http", "true");
    AzureStorageSettings allowed = AzureStorageSettings.fromConfig(yaml);
    assertTrue(allowed.allowInsecureHttp());
    assertTrue(allowed.toString().contains("allow_insecure_http=true"), allowed.toString());
    assertTrue(allowed.withPrefix("p").allowInsecureHttp(), "the opt-in survives a copy");
    yaml.put("allow_insecure_http", "yes");
    assertTrue(failure(() -> AzureStorageSettings.fromConfig(yaml)).contains("storage.allow_insecure_http must be true or false"));
  }

  @Test
  void developmentStorageAndSasConnectionStrings() {
    assertEquals("devstoreaccount1", AzureStorageSettings.connectionStringOverHttp("lake", "UseDevelopmentStorage=true").accountName());
    String sas = "BlobEndpoint=https://sasaccount.blob.core.windows.net/;SharedAccessSignature=sv=2024&sig=abcdefgh";
    assertEquals("sasaccount", AzureStorageSettings.connectionString("lake", sas).accountName());
  }
}

package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class BlobPathsAndRedactionTest {
  private static final String KEY = "c2VjcmV0LWFjY291bnQta2V5LWZvci10ZXN0cy0xMjM0NTY3ODkw+/==";

  private final AzureTarget target =
      AzureTarget.of(
          AzureStorageSettings.connectionString(
              "lake", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + KEY + ";EndpointSuffix=core.windows.net"));
  private final BlobPaths paths = new BlobPaths(target);

  @Test
  void mapsTheAcceptedFormsToBlobNames() {
    assertEquals("abfss://lake@acct.dfs.core.windows.net/lakesink/t", paths.uri(paths.tableName("t")));
    assertEquals("lakesink/t/x", paths.blobName("abfss://lake@acct.dfs.core.windows.net/lakesink/t/x"));
    assertEquals("lakesink/t/x", paths.blobName("abfs://lake@acct.dfs.core.windows.net//lakesink//t/x/"));
    assertEquals("lakesink/t/x", paths.blobName("wasbs://lake@acct.blob.core.windows.net/lakesink/t/x"));
    assertEquals("a b/%3A", paths.blobName("abfss://lake@acct.dfs.core.windows.net/a b/%3A"));
    assertEquals("a b/:", paths.blobName("https://acct.blob.core.windows.net/lake/a%20b/%3A"));
    assertEquals("a+b/é", paths.blobName("https://acct.blob.core.windows.net/lake/a+b/%C3%A9?snapshot=x"));
    assertThrows(IllegalArgumentException.class, () -> paths.blobName("abfss://other@acct.dfs.core.windows.net/x"));
    assertThrows(IllegalArgumentException.class, () -> paths.blobName("s3://lake/x"));
    assertThrows(IllegalArgumentException.class, () -> paths.blobName("/local/path"));
    assertThrows(IllegalArgumentException.class, () -> paths.tableName("a/b"));
  }

  @Test
  void redactsConfiguredSecretsAndSecretShapedText() {
    Redactor redactor = new Redactor(target.secrets());
    String leaky =
        "key " + KEY + " url https://acct.blob.core.windows.net/lake/x?sv=1&sig=AbC%2Bd%3D&se=2 "
            + "cs AccountKey=zzzzzz; Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig client_secret=s3cr3t&x=1";
    String clean = redactor.redact(leaky);
    for (String secret : List.of(KEY, "AbC%2Bd%3D", "zzzzzz", "eyJhbGciOi", "s3cr3t")) {
      assertFalse(clean.contains(secret), clean);
    }
    assertTrue(clean.contains("https://acct.blob.core.windows.net/lake/x?sv=1&sig=***&se=2"), clean);

    RuntimeException scrubbed = redactor.scrub(new IllegalStateException("outer " + KEY, new RuntimeException("inner sig=abc")));
    assertFalse(TestStorages.allMessages(scrubbed).contains(KEY));
    assertFalse(TestStorages.allMessages(scrubbed).contains("sig=abc"));
    assertTrue(scrubbed.getMessage().startsWith("java.lang.IllegalStateException: outer ***"), scrubbed.getMessage());
  }
}

package io.lakesink.storage.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.azure.core.util.serializer.JacksonAdapter;
import com.azure.core.util.serializer.SerializerEncoding;
import java.io.IOException;
import java.time.OffsetDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The project pins Jackson (root pom, jackson-bom) below azure-sdk-bom's import, so the Azure SDK
 * runs on the project's Jackson. azure-core accepts any 2.x from 2.10 on; this checks that its
 * Jackson-based serializer (with the java.time module) really works on the pinned version.
 */
class AzureSdkJacksonTest {

  @Test
  void azureCoreSerializesWithTheProjectsJackson() throws IOException {
    assertEquals("2.21.2", com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString());
    var adapter = JacksonAdapter.createDefaultSerializerAdapter();
    OffsetDateTime when = OffsetDateTime.parse("2026-01-02T03:04:05Z");
    String json = adapter.serialize(Map.of("when", when), SerializerEncoding.JSON);
    assertEquals("{\"when\":\"2026-01-02T03:04:05Z\"}", json);
    Holder back = adapter.deserialize(json, Holder.class, SerializerEncoding.JSON);
    assertEquals(when, back.when);
  }

  /** A bean Jackson fills through its field. */
  public static final class Holder {
    public OffsetDateTime when;
  }
}

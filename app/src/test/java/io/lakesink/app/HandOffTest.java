package io.lakesink.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.catalog.unity.testing.FakeDatabricks;
import io.lakesink.config.Subscription;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.TableFailureException;
import io.lakesink.ownership.HandOff;
import io.lakesink.ownership.HandOffRecord.Step;
import io.lakesink.ownership.TableOwner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lakesink handoff} between two schemas of the Databricks fake (Unity Catalog → Unity
 * Catalog), with a crash injected after every step and the same command run again.
 */
@Timeout(300)
class HandOffTest {
  static final String BRONZE = "main.bronze.stock_APPEND";
  static final String SILVER = "main.silver.stock_APPEND";

  @TempDir Path data;

  /** Thrown by the hook: the process dies right after a step completed. */
  static final class Crash extends RuntimeException {
    Crash(Step step) {
      super("crash after " + step);
    }
  }

  static HandOff.Hook crashAfter(Step at) {
    return step -> {
      if (step == at) {
        throw new Crash(step);
      }
    };
  }

  /** A table delivered and registered as main.bronze.stock_APPEND by a worker. */
  WorkerHarness deliveredTable(FakeDatabricks fake, String topic) {
    fake.addSchema("main", "silver");
    fake.grant("schema", "main.silver", "USE_SCHEMA", "CREATE_EXTERNAL_TABLE", "EXTERNAL_USE_SCHEMA");
    CatalogOwnershipEndToEndTest.send(topic, 0, 5);
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: " + topic + ", table: stock, primary_key: [id]}");
    w.delivery = "  flush_interval: 1s\n  flush_rows: 5\n";
    assertTrue(CatalogOwnershipEndToEndTest.run(CatalogOwnershipEndToEndTest.config(w, fake, "bronze")).allDelivering());
    assertNotNull(fake.table(BRONZE));
    return w;
  }

  static String handoff(WorkerConfig config, String to, boolean dryRun, HandOff.Hook hook) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Subscription s = Commands.subscription(config, "stock");
    HandOffCommands.handoff(config, s, to, dryRun, hook, new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  TableOwner owner(WorkerHarness w) {
    return TableOwner.of(w.table("stock").properties()).orElseThrow();
  }

  @Test
  void aCrashAfterEveryStepResumesForwardAndTheEntryIsNeverInTwoSchemas() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      WorkerHarness w = deliveredTable(fake, SharedKafka.newTopic("handoff-crash", 1));
      WorkerConfig config = CatalogOwnershipEndToEndTest.config(w, fake, "bronze");
      String location = w.table("stock").location();
      long epoch = owner(w).epoch();

      String plan = handoff(config, "default." + SILVER, true, HandOff.Hook.NONE);
      assertTrue(plan.contains("todo  FENCE"), plan);
      assertTrue(plan.contains("todo  REGISTER    create the entry default." + SILVER + " at " + location), plan);
      assertEquals(TableOwner.State.REGISTERED, owner(w).state(), "a dry run changes nothing");

      // bronze → silver, crashing after the fence.
      assertThrows(Crash.class, () -> handoff(config, "default." + SILVER, false, crashAfter(Step.FENCED)));
      assertNotNull(fake.table(BRONZE));
      assertNull(fake.table(SILVER));
      assertEquals(TableOwner.State.HANDING_OFF, owner(w).state());
      assertEquals("default." + SILVER, owner(w).handingOffTo());
      assertEquals(epoch + 1, owner(w).epoch(), "the fence is a new epoch");
      String resumed = handoff(config, "default." + SILVER, true, HandOff.Hook.NONE);
      assertTrue(resumed.contains("resuming after step FENCED") && resumed.contains("done  FENCE"), resumed);
      handoff(config, "default." + SILVER, false, HandOff.Hook.NONE);
      assertOwnedOnlyBy(fake, w, SILVER, BRONZE, location);
      assertEquals(epoch + 2, owner(w).epoch());

      // silver → bronze, crashing after the unregister: no entry anywhere until the resumed run.
      assertThrows(Crash.class, () -> handoff(config, "default." + BRONZE, false, crashAfter(Step.UNREGISTERED)));
      assertNull(fake.table(BRONZE));
      assertNull(fake.table(SILVER));
      handoff(config, "default", false, HandOff.Hook.NONE); // the configured entry: bronze
      assertOwnedOnlyBy(fake, w, BRONZE, SILVER, location);

      // bronze → silver, crashing after the register: the owner is recorded by the resumed run.
      assertThrows(Crash.class, () -> handoff(config, "default." + SILVER, false, crashAfter(Step.REGISTERED)));
      assertNotNull(fake.table(SILVER));
      assertNull(fake.table(BRONZE));
      assertEquals(TableOwner.State.HANDING_OFF, owner(w).state());
      ConfigurationException other = assertThrows(ConfigurationException.class,
          () -> handoff(config, "default.main.gold.stock_APPEND", false, HandOff.Hook.NONE));
      assertTrue(other.getMessage().contains("is under way"), "the destination is registered: only finishing is left; "
          + other.getMessage());
      handoff(config, "default." + SILVER, false, HandOff.Hook.NONE);
      assertOwnedOnlyBy(fake, w, SILVER, BRONZE, location);
      assertEquals(epoch + 6, owner(w).epoch());

      String again = handoff(config, "default." + SILVER, false, HandOff.Hook.NONE);
      assertTrue(again.contains("nothing to do"), again);
      assertEquals(5, w.rows("stock").size(), "no byte of data was touched");
    }
  }

  @Test
  void anEntryAtTheDestinationIsAcceptedOnlyWhenItPointsAtThisSameLocation() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      WorkerHarness w = deliveredTable(fake, SharedKafka.newTopic("handoff-409", 1));
      WorkerConfig config = CatalogOwnershipEndToEndTest.config(w, fake, "bronze");
      String location = w.table("stock").location();
      fake.putTable(SILVER, "EXTERNAL", "file:/somewhere/else", "id", "bigint");

      TableFailureException e = assertThrows(TableFailureException.class,
          () -> handoff(config, "default." + SILVER, false, HandOff.Hook.NONE));
      assertTrue(e.getMessage().contains("file:/somewhere/else"), e.getMessage());
      assertEquals("file:/somewhere/else", fake.table(SILVER).path("storage_location").asText(), "left untouched");
      assertNull(fake.table(BRONZE), "the source was unregistered before the register was refused");
      assertEquals(TableOwner.State.HANDING_OFF, owner(w).state(), "still fenced: nobody writes it");

      // The operator frees the name; the same command goes on from the register.
      fake.removeTable(SILVER);
      fake.putTable(SILVER, "EXTERNAL", location, "id", "bigint"); // e.g. registered by hand at this location
      handoff(config, "default." + SILVER, false, HandOff.Hook.NONE);
      assertOwnedOnlyBy(fake, w, SILVER, BRONZE, location);
    }
  }

  @Test
  void aHandOffStuckOnATakenNameCanBeRedirectedBackToTheSource() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      WorkerHarness w = deliveredTable(fake, SharedKafka.newTopic("handoff-back", 1));
      WorkerConfig config = CatalogOwnershipEndToEndTest.config(w, fake, "bronze");
      String location = w.table("stock").location();
      fake.putTable(SILVER, "EXTERNAL", "file:/somewhere/else", "id", "bigint");
      assertThrows(TableFailureException.class, () -> handoff(config, "default." + SILVER, false, HandOff.Hook.NONE));
      assertNull(fake.table(BRONZE));

      String plan = handoff(config, "default", true, HandOff.Hook.NONE);
      assertTrue(plan.contains("to default." + BRONZE) && plan.contains("todo  REGISTER    create the entry default." + BRONZE), plan);
      assertEquals("default." + SILVER, owner(w).handingOffTo(), "a dry run changes nothing");

      handoff(config, "default", false, HandOff.Hook.NONE); // back to the configured entry
      assertOwnedOnlyBy(fake, w, BRONZE, "main.gold.none", location);
      assertEquals("file:/somewhere/else", fake.table(SILVER).path("storage_location").asText(), "the other object is untouched");
    }
  }

  @Test
  void aRedirectRemovesAnEntryOfOursThatARegisterLeftJustBeforeACrash() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      WorkerHarness w = deliveredTable(fake, SharedKafka.newTopic("handoff-redirect", 1));
      WorkerConfig config = CatalogOwnershipEndToEndTest.config(w, fake, "bronze");
      String location = w.table("stock").location();
      assertThrows(Crash.class, () -> handoff(config, "default." + SILVER, false, crashAfter(Step.UNREGISTERED)));
      // The register reached Unity Catalog, the process died before the journal said so.
      fake.putTable(SILVER, "EXTERNAL", location, "id", "bigint");

      handoff(config, "default", false, HandOff.Hook.NONE);
      assertOwnedOnlyBy(fake, w, BRONZE, SILVER, location);
    }
  }

  @Test
  void registerAndUnregisterActOnlyOnTheOwnersEntry() throws Exception {
    try (FakeDatabricks fake = FakeDatabricks.start()) {
      WorkerHarness w = deliveredTable(fake, SharedKafka.newTopic("handoff-ops", 1));
      WorkerConfig config = CatalogOwnershipEndToEndTest.config(w, fake, "bronze");
      Subscription s = Commands.subscription(config, "stock");

      String unregistered = HandOffCommands.unregister(config, s);
      assertTrue(unregistered.contains("Unregistered default." + BRONZE), unregistered);
      assertNull(fake.table(BRONZE));
      assertNotNull(w.table("stock").location());
      assertEquals(5, w.rows("stock").size(), "the files stay");

      HandOffCommands.register(config, s);
      assertEquals(w.table("stock").location(), fake.table(BRONZE).path("storage_location").asText());

      // Under a configuration naming silver, register still restores the owner's entry, never a second one.
      WorkerConfig silver = CatalogOwnershipEndToEndTest.config(w, fake, "silver");
      HandOffCommands.register(silver, Commands.subscription(silver, "stock"));
      assertNull(fake.table(SILVER));

      assertThrows(Crash.class, () -> handoff(config, "default." + SILVER, false, crashAfter(Step.FENCED)));
      ConfigurationException e = assertThrows(ConfigurationException.class, () -> HandOffCommands.unregister(config, s));
      assertTrue(e.getMessage().contains("under way"), e.getMessage());
    }
  }

  @Test
  void theCommandLineRefusesWhatItCannotHandOffAsAConfigurationError() throws Exception {
    WorkerHarness w = new WorkerHarness(data).subscribe("- {topic: t, table: stock}");
    Path file = data.resolve("lakesink.yaml");
    java.nio.file.Files.writeString(file, w.yaml());
    assertEquals(ExitCode.CONFIGURATION.code, Main.run("handoff", "--config", file.toString(), "--table", "stock", "--to", "default"),
        "no catalog registers the table");
    assertEquals(ExitCode.CONFIGURATION.code,
        Main.run("handoff", "--config", file.toString(), "--table", "stock", "--to", "east.main.bronze.stock_APPEND"),
        "an unknown catalog");
    assertEquals(ExitCode.CONFIGURATION.code, Main.run("unregister", "--config", file.toString(), "--table", "stock"),
        "a table without owner");
    assertEquals(ExitCode.USAGE.code, Main.run("handoff", "--config", file.toString(), "--table", "stock"), "--to is required");
  }

  static void assertOwnedOnlyBy(FakeDatabricks fake, WorkerHarness w, String owner, String other, String location) {
    JsonNode entry = fake.table(owner);
    assertNotNull(entry, owner + " is registered");
    assertEquals(location, entry.path("storage_location").asText());
    assertNull(fake.table(other), other + " is not");
    TableOwner recorded = TableOwner.of(w.table("stock").properties()).orElseThrow();
    assertEquals(owner, recorded.entry());
    assertEquals(TableOwner.State.REGISTERED, recorded.state());
    assertFalse(recorded.handingOffTo() != null);
  }
}

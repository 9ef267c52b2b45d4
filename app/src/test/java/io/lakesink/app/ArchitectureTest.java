package io.lakesink.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The module boundaries DESIGN.md draws, enforced. */
class ArchitectureTest {
  /** Every package of the core module ({@link #theCoreListIsComplete} keeps this list true). */
  static final String[] CORE = {
    "io.lakesink.backfill..", "io.lakesink.catalog", "io.lakesink.changelog..", "io.lakesink.config..", "io.lakesink.currentstate..", "io.lakesink.delivery..",
    "io.lakesink.delta..", "io.lakesink.error..", "io.lakesink.event..", "io.lakesink.maintenance..", "io.lakesink.mapping..",
    "io.lakesink.merge..", "io.lakesink.migration..", "io.lakesink.ownership..", "io.lakesink.quarantine..", "io.lakesink.retry..",
    "io.lakesink.storage", "io.lakesink.types..", "io.lakesink.view.."
  };
  static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar")) // other modules' test fixtures
        .importPackages("io.lakesink");
  }

  @Test
  void coreKnowsNoKafkaAzureOrHttpClient() {
    noClasses().that().resideInAnyPackage(CORE)
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "com.azure..", "java.net.http..", "io.lakesink.kafka..", "io.lakesink.app..", "io.lakesink.storage.azure..")
        .check(classes);
  }

  @Test
  void theCoreListIsComplete() throws Exception {
    java.nio.file.Path sources = java.nio.file.Path.of("..", "core", "src", "main", "java", "io", "lakesink");
    java.util.Set<String> listed = new java.util.TreeSet<>();
    for (String p : CORE) listed.add(p.replace("io.lakesink.", "").replace("..", ""));
    java.util.Set<String> actual = new java.util.TreeSet<>();
    try (var dirs = java.nio.file.Files.list(sources)) {
      dirs.filter(java.nio.file.Files::isDirectory).forEach(d -> actual.add(d.getFileName().toString()));
    }
    org.junit.jupiter.api.Assertions.assertEquals(actual, listed, "core packages and the architecture rule differ");
  }

  /** Backfill sources that need drivers or file libraries live in the app: the core backfill reads rows only. */
  @Test
  void theCoreBackfillKnowsNoSourceLibrary() {
    noClasses().that().resideInAPackage("io.lakesink.backfill..")
        .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "org.apache.parquet..", "org.apache.hadoop..")
        .check(classes);
  }

  @Test
  void kernelInternalsStayInTheDeltaTablePackage() {
    noClasses().that().resideOutsideOfPackage("io.lakesink.delta")
        .should().dependOnClassesThat().resideInAPackage("io.delta.kernel.internal..")
        .check(classes);
  }

  @Test
  void theKafkaSideDoesNotReachIntoTheDeltaLayer() {
    noClasses().that().resideInAPackage("io.lakesink.kafka..")
        .should().dependOnClassesThat().resideInAnyPackage("io.delta..", "io.lakesink.delta..")
        .check(classes);
  }
}

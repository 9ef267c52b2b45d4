package io.lakesink.app;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.ownership.CatalogEntries;
import io.lakesink.ownership.EntryCommands;
import io.lakesink.ownership.HandOff;
import io.lakesink.ownership.HandOffJournal;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.storage.TableStorage;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Function;

/** {@code lakesink handoff}, {@code register} and {@code unregister} (docs/catalog-handoff.md). */
final class HandOffCommands {
  private HandOffCommands() {}

  static int handoff(Path configFile, String table, String to, boolean dryRun) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    handoff(config, Commands.subscription(config, table), to, dryRun, HandOff.Hook.NONE, System.out);
    return Main.OK;
  }

  /** @param hook called after each step (tests inject crashes there) */
  static void handoff(WorkerConfig config, Subscription s, String to, boolean dryRun, HandOff.Hook hook, PrintStream out) {
    with(config, s, (context) -> {
      OwnerIdentity destination = destination(context.config, context.catalogs, s, to);
      HandOff handOff = new HandOff(s.targetTable(), context.table, context.entries, context.journal, Clock.systemUTC(), hook);
      if (dryRun) {
        handOff.plan(destination).forEach(out::println);
      } else {
        handOff.run(destination, out::println);
      }
      return null;
    });
  }

  static int register(Path configFile, String table) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    System.out.println(register(config, Commands.subscription(config, table)));
    return Main.OK;
  }

  static String register(WorkerConfig config, Subscription s) {
    return with(config, s, c -> new EntryCommands(s.targetTable(), c.table, c.entries, c.journal).register());
  }

  static int unregister(Path configFile, String table) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    System.out.println(unregister(config, Commands.subscription(config, table)));
    return Main.OK;
  }

  static String unregister(WorkerConfig config, Subscription s) {
    return with(config, s, c -> new EntryCommands(s.targetTable(), c.table, c.entries, c.journal).unregister());
  }

  private record Context(WorkerConfig config, Catalogs catalogs, CatalogEntries entries, DeltaTable table, HandOffJournal journal) {}

  private static <T> T with(WorkerConfig config, Subscription s, Function<Context, T> action) {
    try (TableStorage storage = Pipeline.storage(config.storage()); Catalogs catalogs = Catalogs.of(config, storage)) {
      DeltaTable table = Pipeline.table(storage, KernelEngine.create(storage), s);
      return action.apply(new Context(config, catalogs, catalogs.entries(), table, new HandOffJournal(storage)));
    }
  }

  /**
   * {@code --to <catalog>[.<namespace>.<name>]}: a named catalog alone means the entry the
   * configuration registers the subscription's table as there.
   */
  static OwnerIdentity destination(WorkerConfig config, Catalogs catalogs, Subscription s, String to) {
    int dot = to.indexOf('.');
    String name = dot < 0 ? to : to.substring(0, dot);
    if (config.catalog(name) == null) {
      throw Errors.unknownCatalog("--to", to, name, config.catalogNames());
    }
    String entry = dot < 0
        ? catalogs.get(name).entryName(s.targetTable()).orElseThrow(() -> new ConfigurationException(
            "Catalog '" + name + "' registers no tables: name the destination entry, --to " + name + ".<namespace>.<name>"))
        : to.substring(dot + 1);
    return new OwnerIdentity(name, entry);
  }
}

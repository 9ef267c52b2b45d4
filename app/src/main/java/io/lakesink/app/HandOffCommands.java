package io.lakesink.app;

import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.config.Subscription;
import io.lakesink.config.TableNames;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.ConfigurationException;
import io.lakesink.error.Errors;
import io.lakesink.ownership.CatalogEntries;
import io.lakesink.ownership.EntryCommands;
import io.lakesink.ownership.HandOff;
import io.lakesink.ownership.HandOffJournal;
import io.lakesink.ownership.OwnerIdentity;
import io.lakesink.ownership.TableOwner;
import io.lakesink.storage.TableStorage;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
      // The changelog first, then its kept table: each moves by the whole protocol, and running the
      // command again after a crash finds the finished one owned by the destination already.
      Map<HandOff, OwnerIdentity> moves = new LinkedHashMap<>();
      moves.put(new HandOff(s.targetTable(), context.table, context.entries, context.journal, Clock.systemUTC(), hook), destination);
      keptTable(context, s).ifPresent(kept -> moves.put(new HandOff(kept.getKey(), kept.getValue(), context.entries,
          context.journal, Clock.systemUTC(), hook), keptDestination(destination, kept.getKey())));
      moves.forEach((handOff, target) -> {
        if (dryRun) {
          handOff.plan(target).forEach(out::println);
        } else {
          handOff.run(target, out::println);
        }
      });
      return null;
    });
  }

  /**
   * The current-state table lakesink keeps for a changelog subscription ({@code current_state.object:
   * table}), when it was written: it moves with the changelog. Refused before anything is changed
   * when it records no owner yet (a worker with the catalog adopts it at its next start), so a
   * hand-off never leaves the two tables in different catalogs for want of a record.
   */
  private static Optional<Map.Entry<String, DeltaTable>> keptTable(Context context, Subscription s) {
    if (!Pipeline.keepsTable(context.config, s)) {
      return Optional.empty();
    }
    String name = TableNames.sanitize(s.table());
    return Pipeline.keptTable(context.storage, KernelEngine.create(context.storage), s).map(kept -> {
      if (TableOwner.of(kept.properties()).isEmpty()) {
        throw Errors.handOffWithoutOwner(name);
      }
      return Map.entry(name, kept);
    });
  }

  /**
   * The kept table goes where the changelog goes, under its own name: {@code lake.silver.orders_APPEND}
   * takes {@code orders} to {@code lake.silver.orders}; a changelog entry not named {@code
   * <x>_APPEND} takes it to {@code <x>}'s namespace under its configured name.
   */
  static OwnerIdentity keptDestination(OwnerIdentity changelog, String keptName) {
    String entry = changelog.entry();
    int dot = entry.lastIndexOf('.');
    String namespace = dot < 0 ? "" : entry.substring(0, dot + 1);
    String last = entry.substring(dot + 1);
    String suffix = TableNames.changelog("");
    String name = last.endsWith(suffix) && last.length() > suffix.length() ? last.substring(0, last.length() - suffix.length()) : keptName;
    return new OwnerIdentity(changelog.catalog(), namespace + name);
  }

  static int register(Path configFile, String table) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    System.out.println(register(config, Commands.subscription(config, table)));
    return Main.OK;
  }

  static String register(WorkerConfig config, Subscription s) {
    return with(config, s, c -> String.join("\n", entryCommands(c, s).stream().map(EntryCommands::register).toList()));
  }

  /**
   * The subscription's table, and the current-state table it keeps when that records an owner:
   * {@code register} and {@code unregister} act on the entries of both (each only on the entry it
   * records as its owner).
   */
  private static List<EntryCommands> entryCommands(Context c, Subscription s) {
    List<EntryCommands> commands = new ArrayList<>();
    commands.add(new EntryCommands(s.targetTable(), c.table, c.entries, c.journal));
    if (Pipeline.keepsTable(c.config, s)) {
      Pipeline.keptTable(c.storage, KernelEngine.create(c.storage), s)
          .filter(kept -> TableOwner.of(kept.properties()).isPresent())
          .ifPresent(kept -> commands.add(new EntryCommands(TableNames.sanitize(s.table()), kept, c.entries, c.journal)));
    }
    return commands;
  }

  static int unregister(Path configFile, String table) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(configFile);
    System.out.println(unregister(config, Commands.subscription(config, table)));
    return Main.OK;
  }

  static String unregister(WorkerConfig config, Subscription s) {
    return with(config, s, c -> String.join("\n", entryCommands(c, s).stream().map(EntryCommands::unregister).toList()));
  }

  private record Context(
      WorkerConfig config, TableStorage storage, Catalogs catalogs, CatalogEntries entries, DeltaTable table, HandOffJournal journal) {}

  private static <T> T with(WorkerConfig config, Subscription s, Function<Context, T> action) {
    try (TableStorage storage = Pipeline.storage(config.storage()); Catalogs catalogs = Catalogs.of(config, storage)) {
      DeltaTable table = Pipeline.table(storage, KernelEngine.create(storage), s);
      return action.apply(new Context(config, storage, catalogs, catalogs.entries(), table, new HandOffJournal(storage)));
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

package io.lakesink.app;

import io.lakesink.app.backfill.BackfillSources;
import io.lakesink.app.backfill.ProgressLine;
import io.lakesink.app.config.ConfigLoader;
import io.lakesink.app.config.WorkerConfig;
import io.lakesink.backfill.Backfill;
import io.lakesink.backfill.BackfillProgress;
import io.lakesink.backfill.BackfillSource;
import io.lakesink.config.Subscription;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.KernelEngine;
import io.lakesink.error.RetryableException;
import io.lakesink.storage.TableStorage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.function.Function;

/** {@code lakesink backfill}: loads rows that never went through Kafka into a subscription's table. */
final class BackfillCommand {
  private BackfillCommand() {}

  /**
   * What the command line says.
   *
   * @param id the backfill id, or null for one derived from the table and the source
   */
  record Request(
      Path config, String table, BackfillSources.Spec source, String id, int batchRows, boolean checkOnly, boolean skipCheck) {}

  static int run(Request request) {
    return run(request, System::getenv, new ProgressLine(System.err, System.console() != null, Clock.systemUTC()));
  }

  static int run(Request request, Function<String, String> environment, BackfillProgress progress) {
    WorkerConfig config = ConfigLoader.fromSystemEnvironment().load(request.config());
    Subscription s = Commands.subscription(config, request.table());
    try (TableStorage storage = Pipeline.storage(config.storage());
        Catalogs catalogs = Catalogs.of(config, storage);
        BackfillSource source = BackfillSources.open(request.source(), s, environment)) {
      DeltaTable table = OwnedTables.open("backfill", storage, KernelEngine.create(storage), s, catalogs);
      String id = request.id() != null ? request.id() : defaultId(s, source);
      Backfill.Settings settings = new Backfill.Settings(id, request.batchRows(), request.checkOnly(), request.skipCheck());
      System.out.println("Backfill " + id + ": " + source.describe() + " → " + s.targetTable() + " (" + s.mode().name().toLowerCase()
          + ") at " + table.location());
      Backfill.Outcome outcome;
      try {
        outcome = new Backfill(s, table, source, settings, progress, Clock.systemUTC()).run();
      } catch (RetryableException e) {
        System.err.println("Backfill " + id + " stopped: " + e.getMessage());
        return ExitCode.BACKFILL_INTERRUPTED.code;
      }
      return report(outcome, request, id);
    }
  }

  private static int report(Backfill.Outcome outcome, Request request, String id) {
    if (outcome.sampled() > 0) {
      System.out.println("Render check: " + outcome.sampled() + " rows rendered, " + outcome.compared()
          + " of them compared with the rows the stream delivered for the same keys"
          + (outcome.compared() == 0 ? " (the stream delivered none of these keys: names and types checked only)" : "")
          + (outcome.refusal().isEmpty() ? ": they agree." : ":"));
      if (!outcome.unfilled().isEmpty()) {
        System.out.println("Note: the source has no column(s) " + String.join(", ", outcome.unfilled())
            + ": backfilled rows hold null there.");
      }
    }
    if (outcome.refusal().isPresent()) {
      System.err.println(outcome.refusal().get());
      return ExitCode.CHECK_FAILED.code;
    }
    if (request.checkOnly()) {
      System.out.println(outcome.sampled() == 0 ? "Render check: the source holds no rows." : "Check only: nothing was written.");
      return ExitCode.OK.code;
    }
    if (outcome.position() == outcome.resumedAt()) {
      System.out.println("Backfill " + id + " had nothing left to load: the table's log says all " + outcome.position()
          + " source rows were committed.");
    }
    return ExitCode.OK.code;
  }

  /** The same table and source give the same id, so running the same command again resumes it. */
  static String defaultId(Subscription s, BackfillSource source) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest((s.targetTable() + "\n" + source.identity()).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }
}

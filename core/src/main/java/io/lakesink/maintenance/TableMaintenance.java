package io.lakesink.maintenance;

import io.lakesink.delta.DataFileSidecars;
import io.lakesink.delta.DeltaTable;
import io.lakesink.delta.LogCleanup;
import io.lakesink.delta.TableFile;
import io.lakesink.delta.TableRewrite;
import io.lakesink.delta.TableVacuum;
import io.lakesink.error.Errors;
import io.lakesink.event.Column;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Delta's table maintenance, which Kernel leaves to the writer: optimize (compaction, and
 * clustering of a MERGE table on its key), vacuum, and log cleanup. Safe beside a running
 * delivery: an optimization that loses a race to a delivery commit retries once or gives up, and
 * never changes what readers see.
 */
public final class TableMaintenance {
  private final String name;
  private final DeltaTable table;
  private final List<String> keyColumns;
  private final MaintenanceSettings settings;
  private final Clock clock;
  private final Consumer<String> progress;

  /**
   * @param keyColumns the MERGE table's primary key, which optimize clusters on; empty for a
   *     changelog table (compacted within each partition) or a table whose key is not configured
   * @param progress receives a line per step of a long run (e.g. {@code System.out::println})
   */
  public TableMaintenance(
      String name, DeltaTable table, List<String> keyColumns, MaintenanceSettings settings, Clock clock, Consumer<String> progress) {
    this.name = name;
    this.table = table;
    this.keyColumns = List.copyOf(keyColumns);
    this.settings = settings;
    this.clock = clock;
    this.progress = progress;
  }

  public String table() {
    return name;
  }

  /** The table's live files, counted; the key warnings look at their statistics. */
  public int fileCount(KeyWarnings warnings) {
    return layout(warnings).files();
  }

  /** The table's live files and their rows, from the log; the key warnings look at their statistics. */
  public Layout layout(KeyWarnings warnings) {
    table.refresh();
    List<TableFile> files = table.files();
    warnings.files(files);
    return new Layout(files.size(), files.stream().mapToLong(TableFile::rows).sum(),
        files.stream().mapToLong(TableFile::deletedRows).sum());
  }

  /**
   * @param files the live files
   * @param rows the rows they hold that a reader sees
   * @param deletedRows the rows their deletion vectors delete: a reader still reads them, then drops them
   */
  public record Layout(int files, long rows, long deletedRows) {
    /** Whether readers read more rows their deletion vectors drop than rows they keep. */
    public boolean mostlyDeleted() {
      return deletedRows > rows;
    }
  }

  /**
   * Compacts small files into files of about the target size (a MERGE table: clusters it on its
   * key), in as many OPTIMIZE commits of at most {@link MaintenanceSettings#stepBytes} as it
   * takes; stops at the first step that gives up.
   */
  public OptimizeResult optimize(boolean dryRun) {
    Optimization run = startOptimization();
    OptimizeResult result = dryRun ? run.plan() : run.step(settings.stepBytes());
    while (!dryRun && result.more() && result.committed()) {
      result = result.then(run.step(settings.stepBytes()));
    }
    return result;
  }

  /**
   * An optimization done step by step: each {@link Optimization#step} plans on the latest log and
   * commits at most its budget of input. Files an earlier step of it wrote are not taken again,
   * so it ends after at most as many steps as the table had files to rewrite.
   */
  public Optimization startOptimization() {
    return new Optimization();
  }

  /** One optimization of the table, in steps; see {@link #startOptimization}. */
  public final class Optimization {
    private final Set<String> written = new HashSet<>();

    private Optimization() {}

    /** Rewrites and commits the next files, at most {@code budgetBytes} of them (at least one group). */
    public OptimizeResult step(long budgetBytes) {
      table.refresh();
      if (!table.exists()) {
        return nothing(new FileSizes(0, 0), false);
      }
      boolean clustered = clusters();
      TableRewrite rewrite = TableRewrite.begin(table, operationParameters(clustered));
      FileSizes before = FileSizes.of(rewrite.files());
      Step step = planStep(rewrite.files(), written, budgetBytes, clustered);
      if (step.groups().isEmpty()) {
        return nothing(before, false);
      }
      long inputs = step.files();
      long inputBytes = step.bytes();
      if (clustered) {
        cluster(rewrite, step.groups().get(0));
      } else {
        compact(rewrite, step.groups());
      }
      Map<String, String> metrics = new LinkedHashMap<>();
      metrics.put("numRemovedFiles", String.valueOf(inputs));
      metrics.put("numRemovedBytes", String.valueOf(inputBytes));
      metrics.put("numAddedFiles", String.valueOf(rewrite.filesAdded()));
      metrics.put("numAddedBytes", String.valueOf(rewrite.bytesAdded()));
      metrics.put("numBatches", String.valueOf(step.groups().size()));
      OptionalLong version = rewrite.commit(metrics);
      table.refresh();
      rewrite.pathsAdded().forEach(p -> written.add(DataFileSidecars.name(p)));
      FileSizes after = version.isPresent() ? before.minus(inputs, inputBytes).plus(rewrite.filesAdded(), rewrite.bytesAdded()) : before;
      return new OptimizeResult(name, before, after, inputs, rewrite.filesAdded(), version, false, version.isEmpty(),
          version.isPresent() && step.more());
    }

    /** What the whole optimization would rewrite, planned on the latest log; writes nothing. */
    OptimizeResult plan() {
      table.refresh();
      if (!table.exists()) {
        return nothing(new FileSizes(0, 0), true);
      }
      boolean clustered = clusters();
      List<TableFile> files = table.files();
      FileSizes before = FileSizes.of(files);
      Set<String> planned = new HashSet<>();
      long inputs = 0;
      long inputBytes = 0;
      long outputs = 0;
      for (Step step = planStep(files, planned, settings.stepBytes(), clustered); !step.groups().isEmpty();
          step = step.more() ? planStep(files, planned, settings.stepBytes(), clustered) : Step.NONE) {
        inputs += step.files();
        inputBytes += step.bytes();
        outputs += clustered ? outputFiles(step.bytes()) : step.groups().size();
        step.groups().forEach(g -> g.forEach(f -> planned.add(DataFileSidecars.name(f.path()))));
      }
      if (inputs == 0) {
        return nothing(before, true);
      }
      return new OptimizeResult(name, before, before.minus(inputs, inputBytes).plus(outputs, inputBytes), inputs, outputs,
          OptionalLong.empty(), true, false, false);
    }

    private OptimizeResult nothing(FileSizes before, boolean dryRun) {
      return new OptimizeResult(name, before, before, 0, 0, OptionalLong.empty(), dryRun, false, false);
    }
  }

  private Map<String, String> operationParameters(boolean clustered) {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("predicate", "[]");
    parameters.put("zOrderBy", clustered ? keyColumns.stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(",", "[", "]")) : "[]");
    return parameters;
  }

  /**
   * The groups one step rewrites: each group's rows are written out together (a compacted bin; the
   * one clustered group).
   */
  record Step(List<List<TableFile>> groups, boolean more) {
    static final Step NONE = new Step(List.of(), false);

    long files() {
      return groups.stream().mapToLong(List::size).sum();
    }

    long bytes() {
      return groups.stream().flatMap(List::stream).mapToLong(TableFile::size).sum();
    }
  }

  /**
   * Plans one step over the table's {@code files}, leaving out those in {@code done} (written or
   * planned by an earlier step): compacted bins up to the budget; for a clustered table, the
   * whole table when it fits in one clustering step, else the files that need it (small, purging,
   * oversized) in key order up to the clustering budget. Clean files of a large table are left as
   * they are: no step rewrites more than its budget.
   */
  Step planStep(List<TableFile> files, Set<String> done, long budgetBytes, boolean clustered) {
    List<TableFile> open = files.stream().filter(f -> !done.contains(DataFileSidecars.name(f.path()))).toList();
    if (!clustered) {
      return upTo(bins(open), budgetBytes);
    }
    long clusterBudget = Math.min(budgetBytes, settings.clusterStepBytes());
    if (done.isEmpty() && files.stream().mapToLong(TableFile::size).sum() <= clusterBudget) {
      return new Step(clusterGroup(files), false);
    }
    long target = settings.targetFileBytes();
    // A step writes at most its budget, so a file a step wrote is no longer small: without this,
    // tables past one step would be rewritten whole by every optimization.
    long small = Math.min(target, clusterBudget) / 2;
    List<TableFile> candidates = new ArrayList<>(open.stream()
        .filter(f -> f.size() < small || purges(f) || f.size() > target + target / 2).toList());
    String key = keyColumns.get(0);
    candidates.sort(Comparator.comparing(f -> f.min().get(key), Comparator.nullsFirst(ClusterOrder::compare)));
    Step step = upTo(candidates.stream().map(List::of).toList(), clusterBudget);
    List<TableFile> group = step.groups().stream().flatMap(List::stream).toList();
    boolean worthIt = group.size() > 1 || group.stream().anyMatch(f -> purges(f) || f.size() > target + target / 2);
    return worthIt ? new Step(List.of(group), step.more()) : Step.NONE;
  }

  /** The first groups whose bytes stay within the budget (the first group always). */
  private static Step upTo(List<List<TableFile>> groups, long budgetBytes) {
    List<List<TableFile>> taken = new ArrayList<>();
    long bytes = 0;
    for (List<TableFile> g : groups) {
      long size = g.stream().mapToLong(TableFile::size).sum();
      if (!taken.isEmpty() && bytes + size > budgetBytes) {
        return new Step(taken, true);
      }
      taken.add(g);
      bytes += size;
    }
    return new Step(taken, false);
  }

  private void compact(TableRewrite rewrite, List<List<TableFile>> bins) {
    for (int i = 0; i < bins.size(); i++) {
      List<TableFile> bin = bins.get(i);
      rewrite.copy(bin);
      progress.accept(String.format("%s: compacted %d of %d: %d files, %d bytes%s", name, i + 1, bins.size(), bin.size(),
          bin.stream().mapToLong(TableFile::size).sum(), bin.get(0).partitionValues().isEmpty() ? "" : " in " + bin.get(0).partitionValues()));
    }
  }

  /** A MERGE table with its key configured and present (and no partitions) is clustered on it. */
  private boolean clusters() {
    if (keyColumns.isEmpty() || !table.partitionColumns().isEmpty()) {
      return false;
    }
    List<String> columns = table.columns().orElse(List.of()).stream().map(Column::name).toList();
    return columns.containsAll(keyColumns);
  }

  /**
   * Groups of small files (under half the target: a file packed once is left alone), within one
   * partition each, of at most the target size; single files stay.
   */
  List<List<TableFile>> bins(List<TableFile> files) {
    long target = settings.targetFileBytes();
    Map<Map<String, String>, List<TableFile>> byPartition = new LinkedHashMap<>();
    for (TableFile f : files) {
      if (f.size() < target / 2 || purges(f)) {
        byPartition.computeIfAbsent(f.partitionValues(), p -> new ArrayList<>()).add(f);
      }
    }
    List<List<TableFile>> bins = new ArrayList<>();
    for (List<TableFile> partition : byPartition.values()) {
      List<TableFile> bin = new ArrayList<>();
      long bytes = 0;
      for (TableFile f : partition) {
        if (!bin.isEmpty() && bytes + f.size() > target) {
          bins.add(bin);
          bin = new ArrayList<>();
          bytes = 0;
        }
        bin.add(f);
        bytes += f.size();
      }
      bins.add(bin);
    }
    bins.removeIf(b -> b.size() < 2 && !purges(b.get(0)));
    return bins;
  }

  /**
   * Share of a file's rows its deletion vector may delete before optimize rewrites it, purging them:
   * delta-spark's default ({@code spark.databricks.delta.optimize.maxDeletedRowsRatio}, 0.05).
   */
  static final double PURGE_DELETED_SHARE = 0.05;

  /** Whether a file's deletion vector deletes enough of it to rewrite it without those rows. */
  static boolean purges(TableFile f) {
    long physical = f.rows() + f.deletedRows();
    return f.deletedRows() > 0 && physical > 0 && (double) f.deletedRows() / physical > PURGE_DELETED_SHARE;
  }

  /**
   * The whole table as one group when its files are small, their key ranges overlap, or a file is
   * more than 1.5 times the target (a merge rewrites a whole file whose range a change falls in,
   * so an oversized file makes every merge rewrite more than the target; clustering splits it;
   * its own files are at most the target, so they may grow by half through merges' inserts
   * before the table is clustered again); else none.
   */
  private List<List<TableFile>> clusterGroup(List<TableFile> files) {
    long target = settings.targetFileBytes();
    long small = files.stream().filter(f -> f.size() < target / 2).count();
    boolean oversized = files.stream().anyMatch(f -> f.size() > target + target / 2);
    // Rows deleted by deletion vectors: a merge's updated rows went to new files, so the key
    // ranges overlap anyway; a file with a large deleted share is reason enough on its own.
    boolean purging = files.stream().anyMatch(TableMaintenance::purges);
    if (files.isEmpty() || (files.size() < 2 && !oversized && !purging)
        || (small < 2 && !oversized && !purging && !keyRangesOverlap(files))) {
      return List.of();
    }
    return List.of(files);
  }

  private boolean keyRangesOverlap(List<TableFile> files) {
    String key = keyColumns.get(0);
    if (files.stream().anyMatch(f -> f.min().get(key) == null || f.max().get(key) == null)) {
      return true;
    }
    List<TableFile> byMin = new ArrayList<>(files);
    byMin.sort(Comparator.comparing(f -> f.min().get(key), ClusterOrder::compare));
    for (int i = 1; i < byMin.size(); i++) {
      if (ClusterOrder.compare(byMin.get(i).min().get(key), byMin.get(i - 1).max().get(key)) <= 0) {
        return true;
      }
    }
    return false;
  }

  private long outputFiles(long bytes) {
    return Math.max(1, (bytes + settings.targetFileBytes() - 1) / settings.targetFileBytes());
  }

  /** Reads the table's rows, orders them on the key and writes them in files of about the target size. */
  private void cluster(TableRewrite rewrite, List<TableFile> files) {
    List<Object[]> rows = new ArrayList<>();
    long bytes = 0;
    for (TableFile f : files) {
      rows.addAll(rewrite.readRows(f));
      bytes += f.size();
    }
    progress.accept(String.format("%s: read %d files, %d rows; clustering on %s", name, files.size(), rows.size(), keyColumns));
    List<String> dataColumns = rewrite.dataColumns().stream().map(Column::name).toList();
    int[] slots = keyColumns.stream().mapToInt(dataColumns::indexOf).toArray();
    ClusterOrder.sort(rows, slots);
    long outputs = outputFiles(bytes);
    int perFile = (int) Math.max(1, (rows.size() + outputs - 1) / outputs);
    for (int from = 0, n = 1; from < rows.size(); from += perFile, n++) {
      rewrite.writeRows(rows.subList(from, Math.min(rows.size(), from + perFile)));
      progress.accept(String.format("%s: wrote file %d of %d", name, n, outputs));
    }
    rewrite.replaced(files);
  }

  /**
   * Deletes the files no version inside the retention references, and orphans older than it.
   *
   * @param retention empty for the table's own ({@code delta.deletedFileRetentionDuration}, 168 h)
   * @param force allows a retention below {@link MaintenanceSettings#SAFE_MINIMUM_RETENTION}
   */
  public VacuumResult vacuum(Optional<Duration> retention, boolean force, boolean dryRun) {
    table.refresh();
    Duration tableRetention = table.exists() ? TableVacuum.retention(table) : Duration.ofHours(168);
    Duration kept = retention.orElse(tableRetention);
    if (kept.compareTo(MaintenanceSettings.SAFE_MINIMUM_RETENTION) < 0 && !force) {
      throw Errors.vacuumRetentionTooShort(name, kept, MaintenanceSettings.SAFE_MINIMUM_RETENTION);
    }
    if (!table.exists()) {
      FileSizes none = new FileSizes(0, 0);
      return new VacuumResult(name, kept, none, none, none, dryRun);
    }
    TableVacuum.Plan plan = TableVacuum.plan(table, kept, clock.instant());
    FileSizes live = new FileSizes(plan.live(), plan.liveBytes());
    FileSizes before = new FileSizes(plan.found(), plan.foundBytes());
    FileSizes after = before.minus(plan.delete().size(), plan.deleteBytes());
    if (!dryRun) {
      int done = 0;
      for (TableVacuum.Candidate c : plan.delete()) {
        TableVacuum.delete(table, c);
        if (++done % 1000 == 0) {
          progress.accept(String.format("%s: deleted %d of %d files", name, done, plan.delete().size()));
        }
      }
      // After the data files: a key filter without its file is harmless, a file without its filter is read instead.
      plan.sidecars().forEach(c -> TableVacuum.delete(table, c));
    }
    return new VacuumResult(name, kept, live, before, after, dryRun);
  }

  /** Checkpoints the log and removes the log files past {@code delta.logRetentionDuration}. */
  public long cleanupLog() {
    table.refresh();
    return table.exists() ? LogCleanup.run(table, clock) : 0;
  }
}

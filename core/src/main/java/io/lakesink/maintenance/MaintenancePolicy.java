package io.lakesink.maintenance;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * Whether the worker maintains its tables by itself, with which settings, and on which thread.
 * Maintenance runs beside delivery, never on the thread that polls Kafka: an optimization of a
 * big table takes minutes, in steps of bounded input; a step of a MERGE table holds that table's
 * delivery, other tables keep flowing (see {@link MaintenanceRunner}).
 */
public record MaintenancePolicy(boolean enabled, MaintenanceSettings settings, Executor executor) {
  /**
   * One thread for every table of the worker: maintenance is rare, and two at once would only
   * compete with delivery for the machine. A daemon: a long optimization must not keep the JVM
   * alive at exit (its files are orphans for vacuum, nothing is half-committed).
   */
  private static final Executor MAINTENANCE_THREAD = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "lakesink-maintenance");
    t.setDaemon(true);
    return t;
  });

  public static final MaintenancePolicy DEFAULT = new MaintenancePolicy(true, MaintenanceSettings.DEFAULT, MAINTENANCE_THREAD);
  public static final MaintenancePolicy OFF = new MaintenancePolicy(false, MaintenanceSettings.DEFAULT, MAINTENANCE_THREAD);

  public MaintenancePolicy withSettings(MaintenanceSettings newSettings) {
    return new MaintenancePolicy(enabled, newSettings, executor);
  }
}

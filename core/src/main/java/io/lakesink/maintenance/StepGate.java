package io.lakesink.maintenance;

/**
 * What an optimize step that holds its table must also take before it starts, beside the
 * delivery's flushes (which wait on {@link MaintenanceRunner#holdsDelivery}): work that commits
 * to the table from another thread, such as the follower of a kept current-state table. A step
 * that cannot take the gate does not start; the runner tries again on its next poll, and the
 * gate's owner lets it in after its current piece of work.
 */
public interface StepGate {
  /** Nothing else commits to the table: a step always starts. */
  StepGate NONE = new StepGate() {
    @Override
    public boolean tryHold() {
      return true;
    }

    @Override
    public void release() {}
  };

  /**
   * Takes the gate for one step, or says no while the other work runs (which then stops
   * starting new work until the step had its turn).
   */
  boolean tryHold();

  /** The step ended (committed, gave up or failed): the other work may go on. */
  void release();
}

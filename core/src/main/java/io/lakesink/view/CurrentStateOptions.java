package io.lakesink.view;

import java.time.Duration;

/**
 * A subscription's {@code current_state:} settings.
 *
 * @param build whether lakesink builds the current-state object at all; false leaves whatever the
 *     subscription's name holds alone
 * @param schema the schema (same catalog) the object is built in; null for the catalog's schema
 * @param refreshLag how stale a materialized view may get; its refresh schedule follows from it
 * @param object what the current state is built as ({@code current_state.object}); null for the
 *     catalog's default ({@code catalog.current_state})
 * @param history whether the history view {@code <table>_HISTORY} is built on the warehouse too
 *     ({@code current_state.history}; {@code bin/lakesink views} prints it either way)
 */
public record CurrentStateOptions(boolean build, String schema, Duration refreshLag, CurrentStateKind object, boolean history) {
  public CurrentStateOptions(boolean build, String schema, Duration refreshLag) {
    this(build, schema, refreshLag, null, false);
  }

  public CurrentStateOptions(boolean build, String schema, Duration refreshLag, CurrentStateKind object) {
    this(build, schema, refreshLag, object, false);
  }

  public static final Duration DEFAULT_REFRESH_LAG = Duration.ofMinutes(60);
  public static final CurrentStateOptions DEFAULT = new CurrentStateOptions(true, null, DEFAULT_REFRESH_LAG);
}

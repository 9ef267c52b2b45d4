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
 */
public record CurrentStateOptions(boolean build, String schema, Duration refreshLag, CurrentStateKind object) {
  public CurrentStateOptions(boolean build, String schema, Duration refreshLag) {
    this(build, schema, refreshLag, null);
  }

  public static final Duration DEFAULT_REFRESH_LAG = Duration.ofMinutes(60);
  public static final CurrentStateOptions DEFAULT = new CurrentStateOptions(true, null, DEFAULT_REFRESH_LAG);
}

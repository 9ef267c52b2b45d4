package io.lakesink.error;

import java.util.Optional;

/**
 * A failure no retry can fix for one table: delivery to that table stops (offsets frozen) while
 * other tables keep flowing. Carries the source position that caused it when there is one.
 */
public final class TableFailureException extends LakesinkException {
  private final SourcePosition position;

  public TableFailureException(String message, SourcePosition position, Throwable cause) {
    super(message, cause);
    this.position = position;
  }

  public Optional<SourcePosition> position() {
    return Optional.ofNullable(position);
  }

  @Override
  public ErrorKind kind() {
    return ErrorKind.TABLE_FAILURE;
  }
}

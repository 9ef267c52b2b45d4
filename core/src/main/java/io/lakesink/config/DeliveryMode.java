package io.lakesink.config;

/** How a subscription's changes reach Delta. */
public enum DeliveryMode {
  /** Every change appended to {@code <table>_APPEND}; a view gives the current state. */
  CHANGELOG,
  /** Changes merged in place into {@code <table>} on the primary key. */
  MERGE
}

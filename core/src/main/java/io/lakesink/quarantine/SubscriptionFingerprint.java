package io.lakesink.quarantine;

import io.lakesink.config.Subscription;

/**
 * The settings of a subscription that decide how its records are written. A quarantine is tied
 * to them: when an operator changes one (the mode, the key, the column mapping, the format),
 * the cause may be gone, so the table is released and tries again.
 */
public final class SubscriptionFingerprint {
  private SubscriptionFingerprint() {}

  public static String of(Subscription s) {
    return "mode=" + s.mode().name().toLowerCase()
        + "; format=" + s.format().name().toLowerCase()
        + "; primary_key=" + s.primaryKey()
        + "; columns=" + s.columns();
  }
}

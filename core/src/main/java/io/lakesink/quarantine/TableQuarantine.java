package io.lakesink.quarantine;

import io.lakesink.config.Subscription;
import io.lakesink.delivery.DeliveryState;
import io.lakesink.error.SourcePosition;
import io.lakesink.error.TableFailureException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's quarantine: restores it at start, records it durably when the table fails, and
 * lets it go when the subscription changed or an operator released it.
 */
public final class TableQuarantine {
  private static final Logger log = LoggerFactory.getLogger(TableQuarantine.class);

  private final String table;
  private final String fingerprint;
  private final QuarantineStore store;
  private final Clock clock;
  /** A quarantine record whose save failed (storage down), saved again on the next check. */
  private QuarantineRecord unsaved;

  public TableQuarantine(String table, Subscription subscription, QuarantineStore store, Clock clock) {
    this.table = table;
    this.fingerprint = SubscriptionFingerprint.of(subscription);
    this.store = store;
    this.clock = clock;
  }

  /** The state to start in: quarantined if a record says so and its cause may still hold. */
  public DeliveryState initialState() {
    var record = store.load(table);
    if (record.isEmpty()) {
      return new DeliveryState.Healthy();
    }
    if (!record.get().subscription().equals(fingerprint)) {
      store.release(table);
      log.info(
          "Table {} released from quarantine: its subscription changed ({} → {}); retrying from offset {}",
          table, record.get().subscription(), fingerprint, record.get().offset());
      return new DeliveryState.Healthy();
    }
    log.warn("Table {} is quarantined since {}: {}", table, record.get().since(), record.get().reason());
    return new DeliveryState.Quarantined(record.get());
  }

  /** Records the failure durably; the returned state holds it even if the write failed. */
  public DeliveryState quarantine(TableFailureException e) {
    SourcePosition at = e.position().orElse(null);
    QuarantineRecord record =
        new QuarantineRecord(
            table,
            e.getMessage(),
            at == null ? null : at.topic(),
            at == null ? null : at.partition(),
            at == null ? null : at.offset(),
            clock.instant(),
            fingerprint);
    unsaved = record;
    saveIfUnsaved();
    log.error("Table {} quarantined: {}", table, e.getMessage());
    return new DeliveryState.Quarantined(record);
  }

  /**
   * Whether an operator released the table since it was quarantined. A record that could not be
   * saved yet is saved now instead: until it is, nobody can have released it.
   */
  public boolean released() {
    if (unsaved != null) {
      saveIfUnsaved();
      return false;
    }
    return store.load(table).isEmpty();
  }

  private void saveIfUnsaved() {
    try {
      store.save(unsaved);
      unsaved = null;
    } catch (RuntimeException io) {
      // The table stops all the same; the record is saved on the next release check.
      log.error("Table {} is quarantined but the record could not be saved yet (retried): {}", table, io.getMessage());
    }
  }
}

package io.lakesink.ownership;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which catalog entry owns a Delta table, as the table itself records it in its properties. The
 * Delta log is the one place every writer reads before each commit, so ownership kept there
 * cannot disagree with the data it governs; a change of owner is a metadata commit, which every
 * concurrent lakesink commit conflicts with and re-reads (see {@link OwnerGuard}).
 *
 * @param catalog the named catalog of lakesink's configuration ({@code default} for the
 *     {@code catalog:} block)
 * @param entry the entry's full name in that catalog, e.g. {@code main.bronze.orders_APPEND}
 * @param epoch incremented by every change of owner (a hand-off's fence and its end)
 * @param state whether the entry is still to be created, is registered, or is being handed off
 * @param handingOffTo during a hand-off, the destination ({@code catalog.namespace.name}); else null
 */
public record TableOwner(String catalog, String entry, long epoch, State state, String handingOffTo) {
  public static final String CATALOG = "lakesink.owner.catalog";
  public static final String ENTRY = "lakesink.owner.entry";
  public static final String EPOCH = "lakesink.owner.epoch";
  public static final String STATE = "lakesink.owner.state";
  public static final String HANDING_OFF_TO = "lakesink.owner.handing_off_to";

  /** The life of an owner's catalog entry. */
  public enum State {
    /** The entry is to be created (a new table, or one adopted at first start). */
    REGISTERING("registering"),
    /** The entry was created: if it vanishes, an operator removed it, and it is not re-created. */
    REGISTERED("registered"),
    /** A hand-off fenced the table: nobody writes it until the new owner is recorded. */
    HANDING_OFF("handing-off");

    public final String value;

    State(String value) {
      this.value = value;
    }

    static State parse(String value) {
      for (State s : values()) {
        if (s.value.equals(value)) {
          return s;
        }
      }
      // A state written by a newer lakesink: nobody here may assume it can write.
      return HANDING_OFF;
    }
  }

  /** A new owner's first record: its entry is still to be created. */
  public static TableOwner registering(String catalog, String entry, long epoch) {
    return new TableOwner(catalog, entry, epoch, State.REGISTERING, null);
  }

  /** The owner a table's properties name; empty for a table no lakesink catalog owns yet. */
  public static Optional<TableOwner> of(Map<String, String> properties) {
    String catalog = properties.get(CATALOG);
    String entry = properties.get(ENTRY);
    if (catalog == null || entry == null) {
      return Optional.empty();
    }
    long epoch;
    try {
      epoch = Long.parseLong(properties.getOrDefault(EPOCH, "0"));
    } catch (NumberFormatException e) {
      epoch = 0;
    }
    return Optional.of(new TableOwner(catalog, entry, epoch, State.parse(properties.getOrDefault(STATE, "registered")),
        blankAsNull(properties.get(HANDING_OFF_TO))));
  }

  private static String blankAsNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /** The table properties that record this owner. */
  public Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(CATALOG, catalog);
    p.put(ENTRY, entry);
    p.put(EPOCH, Long.toString(epoch));
    p.put(STATE, state.value);
    // An empty value rather than a removal: one metadata commit sets every key at once.
    p.put(HANDING_OFF_TO, handingOffTo == null ? "" : handingOffTo);
    return p;
  }

  public TableOwner registered() {
    return new TableOwner(catalog, entry, epoch, State.REGISTERED, null);
  }

  /**
   * Whether this owner is the catalog entry {@code identity} names. Entry names compare without
   * case: catalogs (Unity Catalog among them) treat identifiers so, and a table name whose case
   * changed in the configuration still names the same entry.
   */
  public boolean is(OwnerIdentity identity) {
    return catalog.equals(identity.catalog()) && entry.equalsIgnoreCase(identity.entry());
  }

  /**
   * Whether a configuration that registers the table as {@code identity} renamed its target (the
   * subscription's catalog, the catalog's namespace or the table name) while no hand-off is under
   * way. Only a hand-off may move a table's entry, never a second registration.
   */
  public boolean renamedTo(OwnerIdentity identity) {
    return !is(identity) && state != State.HANDING_OFF;
  }

  /** For messages: {@code default:main.bronze.orders_APPEND}. */
  public String describe() {
    return catalog + ":" + entry;
  }
}

package io.lakesink.error;

import io.lakesink.event.ColumnType;
import io.lakesink.event.NonTableTopic;
import java.util.List;

/**
 * Every message lakesink shows a user is built here: what went wrong, where, and what to change.
 * Keeping them in one place keeps the wording consistent and makes it easy to check that no
 * message ever carries a secret (none of these take one).
 */
public final class Errors {
  private Errors() {}

  public static TableFailureException undecodable(
      String table, SourcePosition at, String reason, Throwable cause) {
    return new TableFailureException(
        "Cannot decode the record at "
            + at
            + " for table "
            + table
            + ": "
            + reason
            + ". Delivery to "
            + table
            + " is stopped with its offsets frozen; fix the producer or the subscription's format,"
            + " then restart.",
        at,
        cause);
  }

  /**
   * A subscribed topic carries no table changes: refused at load (by name), by {@code check} and
   * at start (by its first record), before any of its records is delivered.
   *
   * @param evidence how it was recognised: "by its name", "by its first record (partition 0, offset 0)"
   */
  public static ConfigurationException nonTableTopic(String key, String topic, NonTableTopic kind, String evidence) {
    return invalid(key, "is topic " + topic + ", " + kind.what() + " (recognised " + evidence + "; " + kind.why()
        + "), which carries no table changes", "remove this subscription and subscribe to the connector's table"
        + " topics (<topic.prefix>.<schema or database>.<table>) instead");
  }

  /**
   * A topic a {@code topic_pattern} matches whose table is already another topic's: never two
   * topics in one table.
   *
   * @param owner who writes the table already: "topic a.b.c (subscriptions[1].topic_pattern '…')"
   */
  public static ConfigurationException patternTableClash(String patternKey, String topic, String table, String owner) {
    return invalid(patternKey, "matches topic " + topic + ", whose table " + table + " is already written from " + owner
        + ", and two topics never share a table", "narrow the regex so that it leaves one of them out, give one of them an"
        + " entry of its own (topic: …, table: …; a topic named by an entry is matched by no pattern), or make the entry's"
        + " table a template that tells them apart, such as ${topic}");
  }

  /** Several configuration errors found at once, each on its own line, so one start names them all. */
  public static ConfigurationException all(List<ConfigurationException> errors) {
    return errors.size() == 1
        ? errors.get(0)
        : new ConfigurationException(String.join("\n", errors.stream().map(Throwable::getMessage).toList()));
  }

  /** The same, as a record's decoding error: a topic that starts carrying such records while running. */
  public static String nonTableRecord(String topic, NonTableTopic kind) {
    return "it is a record of " + kind.what() + " (" + kind.why() + "), not a table's change event: topic " + topic
        + " carries no table changes; remove its subscription";
  }

  /** A MongoDB update event without the document as it is after the update. */
  public static String mongoUpdateWithoutDocument() {
    return "a MongoDB update event carries only its updateDescription (the fields that changed), not the whole"
        + " document, so the row cannot be written: set the Debezium MongoDB connector's"
        + " capture.mode=change_streams_update_full (or change_streams_update_full_with_pre_image) so that"
        + " updates carry the full document";
  }

  /** A primitive field whose semantic name lakesink has no rule for (see docs/types.md). */
  public static String unknownSemanticType(String column, String baseType, String semanticName) {
    return "column " + column + ": its schema type " + baseType + " is named '" + semanticName
        + "', a semantic type lakesink has no rule for; it is not stored as a bare " + baseType
        + " because that could be the wrong value (see docs/types.md for the types lakesink understands)";
  }

  /** Never quotes the value: reasons reach logs and {@code /status}. */
  public static TableFailureException columnTypeConflict(
      String table, String column, ColumnType tableType, ColumnType valueType, SourcePosition at) {
    return new TableFailureException(
        "Column "
            + column
            + " of table "
            + table
            + " is "
            + tableType
            + " but the record at "
            + at
            + " carries a "
            + valueType
            + " value that does not fit without loss. Columns are never retyped: map the column to another name or cast it in the"
            + " subscription's column mapping.",
        at,
        null);
  }

  public static TableFailureException castFailed(
      String table, String column, ColumnType cast, String reason, SourcePosition at) {
    return new TableFailureException(
        "The column mapping of table "
            + table
            + " casts "
            + column
            + " to "
            + cast
            + ", but the record at "
            + at
            + " holds a value that does not convert ("
            + reason
            + "). Change the cast in the subscription's column mapping, or map the column to"
            + " string.",
        at,
        null);
  }

  public static TableFailureException reservedColumn(String table, String column, SourcePosition at) {
    return new TableFailureException(
        "The record at "
            + at
            + " has a column named "
            + column
            + ", which table "
            + table
            + " reserves for lakesink's metadata. Rename the column at the source or in the"
            + " subscription's column mapping.",
        at,
        null);
  }

  public static TableFailureException offsetsAheadOfTopic(String table, String partition, long stored, long end) {
    return new TableFailureException(
        "Table "
            + table
            + " has delivered "
            + partition
            + " up to offset "
            + stored
            + " but the partition now ends at offset "
            + end
            + ": the topic was probably deleted and re-created. Reading it from the start would"
            + " duplicate rows. Deliver the new topic to a new table (or move the old table away),"
            + " then restart.",
        null,
        null);
  }

  public static TableFailureException offsetsBehindRetention(String table, String partition, long stored, long earliest) {
    return new TableFailureException(
        "Table "
            + table
            + " needs "
            + partition
            + " from offset "
            + stored
            + " but the oldest offset Kafka still holds is "
            + earliest
            + ": the events in between were deleted by retention before lakesink read them."
            + " Backfill the table from the source, or accept the gap by moving the table away,"
            + " then restart.",
        null,
        null);
  }

  public static TableFailureException keyColumnMissing(String table, String column, SourcePosition at) {
    return new TableFailureException(
        "The primary key of table "
            + table
            + " names column "
            + column
            + ", which the records (first at "
            + at
            + ") do not carry. Fix primary_key (or the column mapping's primary_key flags) to name"
            + " columns of the table.",
        at,
        null);
  }

  public static TableFailureException commitFailed(String table, int attempts, Throwable cause) {
    return new TableFailureException(
        "Committing to table "
            + table
            + " failed "
            + attempts
            + " times in a row (last: "
            + cause
            + "). Its offsets are frozen; check the storage and restart.",
        null,
        cause);
  }

  /**
   * A table whose column mapping gives its columns physical names of their own (another engine
   * created it so): lakesink hands Kernel rows by column name and cannot write it.
   */
  public static TableFailureException columnMappingUnsupported(String location, String mode, Throwable cause) {
    return new TableFailureException(
        "The Delta table at "
            + location
            + " uses column mapping (delta.columnMapping.mode = "
            + mode
            + ") with physical column names another engine chose; lakesink writes columns by their"
            + " names and cannot write such a table. Point the subscription at a table of its own"
            + " (its own `table` name or path), or rewrite this table without column mapping with"
            + " the engine that created it, then release the quarantine.",
        null,
        cause);
  }

  public static TableFailureException deltaLogVanished(String location, long lastVersion) {
    return new TableFailureException(
        "The Delta log at "
            + location
            + " is gone (lakesink last saw version "
            + lastVersion
            + "): the table was deleted while lakesink was writing it. lakesink never commits to"
            + " a log that lost its history (readers could not read it). Restore the table, or, to"
            + " start the table over from the offsets Kafka still holds, release the quarantine.",
        null,
        null);
  }

  public static TableFailureException deltaTableReplaced(String location, String expectedId, String foundId) {
    return new TableFailureException(
        "The Delta table at "
            + location
            + " was replaced by another table (table id "
            + foundId
            + ", lakesink wrote "
            + expectedId
            + "). lakesink does not write into a table it did not create; move the other table"
            + " away, or release the quarantine to deliver into the new table from its stored offsets.",
        null,
        null);
  }

  // --- backfill (docs/backfill.md): refusals name what to change; only the render check quotes values

  public static ConfigurationException backfillNoTable(String table, String location) {
    return new ConfigurationException(
        "Table " + table + " does not exist at " + location + ": a backfill writes into a table the stream"
            + " created. Start the worker first (it creates the table with its first commit), then run the"
            + " backfill again.");
  }

  public static ConfigurationException backfillNoKey(String table) {
    return new ConfigurationException(
        "The subscription of table " + table + " has no primary key, and a backfill needs one to tell the rows"
            + " the stream delivered from the ones it loads. Set primary_key on the subscription (or flag the"
            + " key columns in its column mapping).");
  }

  public static ConfigurationException backfillKeyColumnMissing(String table, String column) {
    return new ConfigurationException(
        "The primary key of table " + table + " names column " + column + ", which the table does not have."
            + " Fix primary_key (or the column mapping's primary_key flags) to name columns of the table.");
  }

  public static ConfigurationException backfillUnknownColumns(String table, List<String> columns) {
    return new ConfigurationException(
        "The backfill source has column(s) " + String.join(", ", columns) + " that table " + table
            + " does not have. A backfill writes only into the columns the stream created: leave them out of"
            + " the query or the files, or map them in the subscription's column mapping.");
  }

  /** A backfill row's place: "line 4 of /data/orders.csv", "row 3 of /data/part-0.parquet" (1-based). */
  public static String backfillRowPlace(String source, boolean line, long number) {
    return (line ? "line " : "row ") + number + " of " + source;
  }

  /**
   * @param place from {@link #backfillRowPlace}
   * @param reason may name a column and a type, never the value
   */
  public static ConfigurationException backfillRowRefused(String table, String place, String reason) {
    // A reason that is a whole message of its own (the stream's refusal) ends with its full stop.
    String why = reason.endsWith(".") ? reason.substring(0, reason.length() - 1) : reason;
    return new ConfigurationException(
        "Cannot write " + place + " into table " + table + ": " + why
            + ". Fix the source or the query (or the subscription's column mapping), then run the backfill"
            + " again: it resumes after the last committed batch.");
  }

  public static ConfigurationException backfillRunning(String table, String id, long stored, long from) {
    return new ConfigurationException(
        "Another run of backfill " + id + " committed table " + table + " up to row " + stored + " while this"
            + " one was writing from row " + from + ": run one backfill with an id at a time. Running the"
            + " same command again resumes where the table's log says it stopped.");
  }

  /**
   * The render check's refusal. It quotes values on purpose, unlike every other message: it is
   * printed by the command the user runs and reaches no log or status, and both values are what
   * tells the user what to change.
   */
  public static String backfillRenderMismatch(String table, List<String> differences) {
    return "The backfill renders rows differently from what the stream delivered to table " + table + ":\n  "
        + String.join("\n  ", differences)
        + "\nNothing was written. Change the source query or files (names, types, time zones, decimal"
        + " scales) or the subscription's column mapping so both agree, then run the backfill again."
        + " If the rows changed at the source after the stream delivered them, run it with --skip-check.";
  }

  // --- the Kafka step of `bin/lakesink check`: the configured address, the cause, the key to change.
  // The reasons passed in come from Kafka's exceptions, scrubbed of the configured secrets by the caller.

  public static String kafkaUnreachable(String bootstrap, List<AddressProblem> problems) {
    List<String> each = problems.stream().map(Errors::addressProblem).toList();
    return "No broker of kafka.bootstrap_servers (" + bootstrap + ") can be reached: " + String.join("; ", each)
        + ". Check kafka.bootstrap_servers (each entry the host:port of a broker listener this machine can reach)"
        + " and that the brokers are running.";
  }

  private static String addressProblem(AddressProblem p) {
    return p.address() + switch (p.kind()) {
      case MALFORMED -> " is not host:port";
      case UNKNOWN_HOST -> ": unknown host (the name does not resolve here)";
      case REFUSED -> ": connection refused (nothing listens on that port)";
      case NO_ANSWER -> ": no answer within " + p.detail() + " (a wrong address, or a firewall that drops the connection)";
      case OTHER -> ": " + p.detail();
    };
  }

  /**
   * Connections open, but no Kafka answer: not a Kafka listener, or one expecting another protocol.
   *
   * @param unreachable the other configured addresses, which did not even connect
   */
  public static String kafkaNoAnswer(
      String bootstrap, List<String> accepting, List<AddressProblem> unreachable, String securityProtocol, long seconds) {
    String others = unreachable.isEmpty() ? ""
        : " (only " + String.join(",", accepting) + "; " + String.join("; ", unreachable.stream().map(Errors::addressProblem).toList()) + ")";
    return "Kafka at " + bootstrap + " accepts connections" + others + " but gave no answer within " + seconds + " s."
        + " Check that kafka.bootstrap_servers names a Kafka listener, that kafka.properties' security.protocol (now "
        + securityProtocol + ") is what that listener expects, and that the brokers' advertised listeners can be reached"
        + " from this machine.";
  }

  public static String kafkaTlsFailed(String bootstrap, String reason) {
    return "The TLS handshake with Kafka at " + bootstrap + " failed (" + reason + "). Check kafka.properties:"
        + " security.protocol (SSL or SASL_SSL only where the listener speaks TLS) and ssl.truststore.location,"
        + " which must hold the CA that signed the brokers' certificates.";
  }

  /** Never the credentials: only the mechanism, and the broker's reason. */
  public static String kafkaAuthenticationFailed(String bootstrap, String mechanism, String reason) {
    return "Kafka at " + bootstrap + " refused lakesink's authentication (" + reason + "). Check kafka.properties:"
        + " sasl.mechanism (now " + mechanism + ") and the user name and password in sasl.jaas.config.";
  }

  public static String kafkaNotAuthorized(String bootstrap, String reason) {
    return "Kafka at " + bootstrap + " does not let lakesink's user list the topics (" + reason + "). Grant it"
        + " Describe on the subscribed topics (and Read on them and on its consumer group), or check the user in"
        + " kafka.properties' sasl.jaas.config.";
  }

  /** A failure the check cannot explain further: Kafka's own words. */
  public static String kafkaCheckFailed(String bootstrap, String reason) {
    return "Kafka at " + bootstrap + " could not list the topics (" + reason + "). Check kafka.bootstrap_servers and"
        + " kafka.properties.";
  }

  public static String kafkaTopicsMissing(List<String> topics) {
    return "topics not found: " + topics + " (check the subscriptions' topic names and the ACLs)";
  }

  // --- `bin/lakesink init`: it reads the broker given on its command line, so the fix names the options.

  /**
   * @param problem the connection test's message (it names kafka.bootstrap_servers and kafka.properties)
   * @param configFile the file of --config, or null
   */
  public static String initKafkaFailed(String problem, String configFile) {
    return "lakesink init could not read the topics. " + problem + " For init, kafka.bootstrap_servers is --bootstrap-servers"
        + (configFile == null
            ? " and kafka.properties are those of a file given with --config (security settings: give one)."
            : " (or that of " + configFile + ") and kafka.properties are those of " + configFile + ".");
  }

  /**
   * @param skipped topics that are not a table's change events, each with the reason
   */
  public static String initNoTableTopics(String bootstrap, int topics, int outsidePatterns, List<String> skipped) {
    return "No Debezium table topic found at " + bootstrap + ": of its " + topics + " topics, " + outsidePatterns
        + " do not match --include/--exclude"
        + (skipped.isEmpty() ? "" : " and " + skipped.size() + " are not a table's change events (" + String.join(", ", skipped) + ")")
        + ". Check that --bootstrap-servers names the cluster the Debezium connector writes to, and the --include and"
        + " --exclude patterns (Java regular expressions matching whole topic names).";
  }

  public static String initOutputExists(String file) {
    return file + " exists and lakesink init does not overwrite it: choose another --output, or add --force to replace it.";
  }

  public static String initNoBroker() {
    return "lakesink init needs the broker: give --bootstrap-servers host:port, or --config with a file whose"
        + " kafka.bootstrap_servers names it.";
  }

  public static ConfigurationException missing(String key, String what) {
    return new ConfigurationException("Configuration key '" + key + "' is required: " + what + ".");
  }

  public static ConfigurationException invalid(String key, String problem, String fix) {
    return new ConfigurationException(
        "Configuration key '" + key + "' " + problem + ": " + fix + ".");
  }

  public static ConfigurationException missingEnvironment(String key, String variable) {
    return new ConfigurationException(
        "Configuration key '"
            + key
            + "' refers to environment variable "
            + variable
            + ", which is not set: export it or change the value.");
  }

  /**
   * A decoder failed in a way it did not anticipate (an exception other than its "cannot decode"
   * one): a bug in lakesink, not a bad record. Only the exception's class is shown; its message
   * could quote the record.
   */
  public static TableFailureException decoderBug(String table, SourcePosition at, Throwable cause) {
    return new TableFailureException(
        "Internal error while decoding the record at "
            + at
            + " for table "
            + table
            + ": "
            + cause.getClass().getName()
            + ". This is a bug in lakesink, please report it with the stack trace from the log."
            + " Delivery to "
            + table
            + " is stopped with its offsets frozen; a restart reads the record again.",
        at,
        cause);
  }

  /** A record of a table merged on record keys that carries no usable key of its own. */
  public static TableFailureException recordWithoutKey(String table, List<String> recordKeyFields, SourcePosition at) {
    String problem = recordKeyFields.isEmpty()
        ? "has no record key"
        : "has a record key (" + String.join(", ", recordKeyFields) + ") whose fields the record does not carry";
    return new TableFailureException(
        "The record at "
            + at
            + " "
            + problem
            + ", but table "
            + table
            + " is merged on the record key (no primary_key is configured and other records carried"
            + " one): merging it would add a row next to the one it should replace. Set primary_key on"
            + " the subscription (or flag the key columns in the column mapping) so every record is"
            + " merged on the same columns, make the producer give every record its key, or deliver"
            + " this subscription as a changelog (mode: changelog).",
        at,
        null);
  }

  public static ConfigurationException vacuumRetentionTooShort(String table, java.time.Duration asked, java.time.Duration minimum) {
    return new ConfigurationException(
        "Vacuum of " + table + " refused: a retention of " + asked.toMinutes() + " minutes is below the safe minimum of "
            + minimum.toHours() + " hour(s); a reader on an older version, or a write not committed yet, could lose its"
            + " files. Use a longer --retention-hours, or add --force if no reader or writer can be running.");
  }

  /** The {@code /status} warning of a key column that holds one value across a MERGE table. */
  public static String constantKeyColumn(String table, String column, Object value, long rows) {
    return "Key column '" + column + "' of " + table + " holds the same value (" + value + ") in all " + rows
        + " rows: the declared primary key looks wrong, and every merge may rewrite most of the table."
        + " Fix primary_key on the subscription (or the key flags of its column mapping).";
  }

  /** The {@code /status} warning of merges that rewrite far more rows than they receive. */
  public static String mergeRewritesTooMuch(String table, long received, long rewritten) {
    return "Merges into " + table + " rewrite far more rows than they receive (last: " + rewritten + " rows rewritten for "
        + received + " changes): the declared primary key may be wrong, or the table is not clustered on it."
        + " Check primary_key on the subscription, and run 'lakesink maintain --table " + table + " --optimize'.";
  }

  /**
   * Optimizations of a table keep losing to commits of another writer (not this worker's
   * delivery, which waits for them): the table's file count grows until they win.
   */
  public static String optimizeKeepsGivingUp(String table, int times, int files) {
    return "Optimize of " + table + " gave up " + times + " times in a row: another writer (a second worker, delta-spark,"
        + " a backfill) keeps changing the files it rewrites" + (files >= 0 ? ", and the table holds " + files + " files" : "")
        + ". It is tried again with a smaller scope; if this stays, make sure one worker delivers to the table, or run"
        + " 'lakesink maintain --table " + table + " --optimize' while the other writer is idle.";
  }

  /**
   * A merged row the MERGE → changelog migration cannot copy: the changelog already has the
   * column with a type that cannot hold the value. Never quotes the value.
   */
  public static TableFailureException migrationColumnDoesNotFit(
      String mergeTable, String changelog, String column, ColumnType mergeType, ColumnType changelogType) {
    return new TableFailureException(
        "The MERGE table " + mergeTable + " cannot be copied into the changelog " + changelog + " without loss: its column "
            + column + " is " + mergeType + " but " + changelog + " already has " + column + " as " + changelogType
            + ", which cannot hold one of its values. Nothing was copied; the subscription is stopped with its offsets"
            + " frozen. Set the subscription back to mode: merge to resume writing " + mergeTable + " as before, or give "
            + changelog + " a column " + column + " that holds " + mergeType + " values (a string column holds any)"
            + " before switching again.",
        null,
        null);
  }

  // Table ownership between catalogs (docs/catalog-handoff.md).

  /**
   * @param owner the owning entry as recorded in the table ({@code catalog:entry})
   * @param ours the entry this worker registers the table as ({@code catalog.entry}), null without a catalog
   * @param ownerTarget the owner as a {@code --to} target
   */
  public static TableFailureException tableOwnedElsewhere(String table, String owner, String ours, String ownerTarget) {
    String move = ours == null
        ? "This worker has no catalog: to write the table without one, release it from its owner with `bin/lakesink"
            + " unregister --config <config file> --table " + table + "`"
        : "To move the table to this worker's entry, run `bin/lakesink handoff --config <config file> --table " + table
            + " --to " + ours + "`; or, if the owner is right, point the subscription's catalog, schema or table name at "
            + ownerTarget;
    return new TableFailureException(
        "Table " + table + " is owned by catalog entry " + owner + " (recorded in its Delta log), not by "
            + (ours == null ? "this worker, which has no catalog" : ours + ", the entry this worker registers it as")
            + ". lakesink never writes a table another catalog entry owns, so two catalogs cannot fork it: delivery to "
            + table + " is stopped with its offsets frozen. " + move
            + ". Then run `bin/lakesink quarantine release --config <config file> --table " + table + "`.",
        null,
        null);
  }

  /** A migration step took effect or is due, but its journal could not be read or written. */
  public static String migrationStepNotRecorded(String table, String problem) {
    return "The MERGE → changelog migration of " + table + " could not go on: " + problem
        + ". Each step is safe to repeat, so it resumes at the next attempt; check the storage's access.";
  }

  /** A hand-off fenced the table: its writers stop until the new owner is recorded. */
  public static TableFailureException tableBeingHandedOff(String table, String owner, String destination) {
    return new TableFailureException(
        "Table " + table + " is being handed off from catalog entry " + owner + " to "
            + (destination == null ? "another catalog" : destination)
            + " (a hand-off fenced it in its Delta log): delivery to " + table + " is stopped with its offsets frozen so"
            + " that no commit forks it. Finish the hand-off with the same `bin/lakesink handoff` command (it resumes"
            + " where it stopped), point the subscription at the new owner, then run `bin/lakesink quarantine release"
            + " --config <config file> --table " + table + "`.",
        null,
        null);
  }

  /**
   * The configuration names another entry than the one the table records as its owner: a renamed
   * target, which only a hand-off may move.
   */
  public static ConfigurationException renamedTarget(
      String subscription, String table, String owner, String configured, String configFile) {
    return new ConfigurationException(
        "Subscription " + subscription + " registers table " + table + " as " + configured
            + ", but the table records catalog entry " + owner + " as its owner (in its Delta log). Registering the new"
            + " name would leave two catalog entries owning one table. If you renamed the target (the subscription's"
            + " catalog, that catalog's catalog or schema, or the table), move the entry with `bin/lakesink handoff --config " + configFile
            + " --table " + table + " --to " + configured + "`, then start again; if the table was handed off on purpose,"
            + " change the configuration back to its owner.");
  }

  /**
   * {@code backfill} or {@code maintain} on a table that another catalog entry owns, or that a
   * hand-off fenced: refused before anything is written, as a worker would refuse to deliver.
   *
   * @param ours the entry this configuration registers the table as; null without a catalog
   */
  public static ConfigurationException commandOnTableOwnedElsewhere(
      String command, String table, String owner, String ours, boolean handingOff) {
    String why = handingOff
        ? "a hand-off fenced it (" + owner + "): finish the hand-off with the same `bin/lakesink handoff` command first,"
            + " then run " + command + " with the configuration of the new owner"
        : "it is owned by catalog entry " + owner + " (recorded in its Delta log), not by "
            + (ours == null ? "this configuration, which has no catalog" : ours + ", the entry this configuration registers it as")
            + ": run " + command + " with the owner's configuration, or move the table here first with `bin/lakesink handoff`";
    return new ConfigurationException(
        "lakesink " + command + " refuses to write table " + table + ": " + why
            + ". lakesink never writes a table another catalog entry owns, so two catalogs cannot fork it. Nothing was written.");
  }

  public static ConfigurationException handOffUnderWay(String table, String from, String to, String step) {
    return new ConfigurationException(
        "A hand-off of table " + table + " from " + from + " to " + to + " is under way (last completed step: " + step
            + "). Finish it first with `bin/lakesink handoff --config <config file> --table " + table + " --to " + to
            + "`, which resumes where it stopped; then hand the table on if you want it elsewhere.");
  }

  public static ConfigurationException handOffWithoutOwner(String table) {
    return new ConfigurationException(
        "Table " + table + " records no owning catalog entry (it was never written with a catalog, or does not exist"
            + " yet). Start the worker once with the subscription's catalog configured: it adopts the table, and then"
            + " the table can be handed off or registered.");
  }

  public static ConfigurationException handOffOwnerChanged(String table, String expected, String found) {
    return new ConfigurationException(
        "The owner table " + table + " records changed during the hand-off: expected " + expected + ", found " + found
            + ". Another hand-off or an operator changed it; check `bin/lakesink handoff --dry-run` and the journal before"
            + " going on.");
  }

  /** A {@code --to} (or a subscription) names a catalog the configuration does not have. */
  public static ConfigurationException unknownCatalog(String option, String value, String catalog, java.util.Collection<String> known) {
    return new ConfigurationException(
        option + " " + value + " names catalog '" + catalog + "', which the configuration does not have; configured: "
            + known + ". Write it as <catalog>[.<namespace>.<name>], e.g. default.main.silver.orders_APPEND.");
  }

  // The current-state table lakesink keeps from a changelog (current_state.object: table). Each
  // refusal stops that table only: the changelog keeps flowing.

  /** {@code current_state.object: table} on a subscription without a key. */
  /** A refusal of the kept table (quarantined under {@code <table>}): its changelog keeps flowing. */
  public static TableFailureException currentStateTableWithoutKey(String table) {
    return new TableFailureException("Subscription " + table + " asks for a current-state table (current_state.object:"
        + " table), which needs a key to match changes on, and has none: the table " + table + " is not kept. Set"
        + " primary_key (or flag the key columns in the column mapping), or use current_state.object: view; the changed"
        + " subscription releases this quarantine at the next start. The changelog " + table + "_APPEND keeps flowing.",
        null, null);
  }

  /** The kept table's location holds a Delta table lakesink did not create from this changelog. */
  public static TableFailureException currentStateTableTaken(String table, String location, String holds) {
    return new TableFailureException("The current-state table " + table + " cannot be kept at " + location + ": that"
        + " location already holds " + holds + ", which lakesink does not keep from the changelog " + table
        + "_APPEND. lakesink never overwrites it. Move that table away (or delete it if it is a MERGE table whose rows"
        + " you no longer need), or use current_state.object: view, then release the table: bin/lakesink quarantine release"
        + " --config <config file> --table " + table + ". The changelog keeps flowing meanwhile.", null, null);
  }

  /** Another engine committed data to the kept table: its rows may no longer be the view's. */
  public static TableFailureException currentStateTableWrittenElsewhere(String table, long version, String engine) {
    return new TableFailureException("The current-state table " + table + " was written by another engine ("
        + (engine == null ? "no engineInfo" : engine) + ", version " + version + "): lakesink keeps it equal to the"
        + " view over " + table + "_APPEND and no longer knows that it is. It stops updating it; the changelog keeps"
        + " flowing. Write to the changelog's source instead; to rebuild the table from the changelog, delete it (its"
        + " directory), then release it: bin/lakesink quarantine release --config <config file> --table " + table + ".",
        null, null);
  }

  // Outages: an outside service that does not answer. Shown in /status as a table's reason (the
  // table is degraded, not quarantined: nothing is wrong with its data) and as the worker's
  // outage. Each one names the service and what waits on it; none quotes a record or a secret.

  /** Why Kafka is counted as down: the probe that failed, naming the bootstrap servers. */
  public static String kafkaNotAnswering(String bootstrap, java.time.Duration timeout, int inARow, String cause) {
    return "Kafka (" + bootstrap + ") did not answer a request for end offsets within " + timeout.toMillis() + " ms, "
        + inARow + " times in a row (" + cause + ")";
  }

  /** A table's reason while Kafka does not answer. */
  public static String waitingOnKafka(String problem) {
    return "Waiting on Kafka, which does not answer: nothing new is read for this table until it does; rows already"
        + " read are still committed. " + problem;
  }

  /** A table's reason while the schema registry does not answer for one of its records. */
  public static String waitingOnSchemaRegistry(String problem, java.time.Duration retry) {
    return "Waiting on the schema registry, which does not answer: the record is read again every " + retry.toSeconds()
        + " s until it does. " + problem;
  }

  /** A table's reason while its commits fail on storage and are retried. */
  public static String waitingOnStorage(String problem) {
    return "Waiting on storage, which does not answer: the buffered rows are kept, reading pauses once a flush gives"
        + " up, and the flush is tried again until storage answers. " + problem;
  }
}

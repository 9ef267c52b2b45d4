package io.lakesink.quarantine;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * Why a table stopped, kept beside the tables so it survives restarts and moves with the
 * storage to any replica.
 *
 * @param table the Delta table's name
 * @param reason the full error message
 * @param topic the offending record's topic, when one record caused it
 * @param partition its partition, or null
 * @param offset its offset, or null
 * @param since when the table was quarantined
 * @param subscription the subscription settings the error happened under (see {@link
 *     SubscriptionFingerprint}); changing them releases the table
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QuarantineRecord(
    String table, String reason, String topic, Integer partition, Long offset, Instant since, String subscription) {}

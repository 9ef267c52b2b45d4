package io.lakesink.iceberg;

/**
 * What one sync did.
 *
 * @param deltaVersion the Delta version the Iceberg metadata now describes
 * @param metadataLocation the current {@code _lakesink_iceberg/metadata/vN.metadata.json}, the pointer an Iceberg
 *     catalog registers
 * @param filesAdded data files that entered the Iceberg table
 * @param filesRemoved data files that left it (a MERGE's or OPTIMIZE's removed files)
 * @param changed false when the metadata already described this Delta version
 */
public record SyncResult(long deltaVersion, String metadataLocation, int filesAdded, int filesRemoved, boolean changed) {}

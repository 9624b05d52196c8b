package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Copies one key's records to another key, whatever its type, without knowing the type's layout: a
 * string's metadata is copied as it is; a collection's metadata is copied with only its version replaced
 * by a fresh one, and every subkey of the old version is written again under the new key and version with
 * the same suffix and value. Type-specific metadata fields after the common header (expiry included) are
 * therefore kept, and a type added later copies correctly as long as all its elements are subkeys.
 */
public final class KeyCopier {

    private final Keyspace keyspace;

    public KeyCopier(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /**
     * Adds to {@code batch} the records that make {@code to} of {@code destination} a copy of the live key
     * {@code from} (whose metadata record is {@code rawMetadata}), reading subkeys with {@code options}.
     * Caller holds both keys' locks; whatever {@code to} held before is replaced, its old subkeys becoming
     * garbage. Subkeys carry no database, so only the metadata record names {@code destination} (both are in
     * the keyspace's one layout).
     */
    public void copy(ReadOptions options, WriteBatch batch, byte[] from, byte[] rawMetadata, Database destination,
                     byte[] to) {
        Metadata meta = Metadata.decodeHeader(rawMetadata);
        if (!meta.type().hasSubkeys()) {
            batch.put(destination.metadataKey(to), rawMetadata.clone());
            return;
        }
        long oldVersion = ByteBuffer.wrap(rawMetadata).getLong(KeyEncoding.VERSION_OFFSET);
        long newVersion = keyspace.newVersion();
        byte[] copied = rawMetadata.clone();
        ByteBuffer.wrap(copied).putLong(KeyEncoding.VERSION_OFFSET, newVersion);
        byte[] oldPrefix = keyspace.database().subkeyPrefix(from, oldVersion);
        byte[] newPrefix = destination.subkeyPrefix(to, newVersion);
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(oldPrefix)
                .withUpperBound(KeyEncoding.prefixEnd(oldPrefix)))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] k = it.key();
                byte[] moved = Arrays.copyOf(newPrefix, newPrefix.length + k.length - oldPrefix.length);
                System.arraycopy(k, oldPrefix.length, moved, newPrefix.length, k.length - oldPrefix.length);
                batch.put(moved, it.value());
            }
        }
        batch.put(destination.metadataKey(to), copied);
    }

    /**
     * The raw metadata record of {@code key} in the keyspace's database if it is live (present and not
     * expired), else null.
     */
    public byte[] liveRawMetadata(ReadOptions options, byte[] key) {
        byte[] raw = keyspace.db().get(options, keyspace.database().metadataKey(key));
        if (raw == null) {
            return null;
        }
        Metadata meta = Metadata.decodeHeader(raw);
        return meta.hasExpiry() && meta.isExpired(keyspace.now()) ? null : raw;
    }
}

package io.varve.kafka.streams.store;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import io.varve.core.WriteBatchWithIndex;

import static io.varve.kafka.streams.store.VersionedLayout.HISTORY_END;
import static io.varve.kafka.streams.store.VersionedLayout.HISTORY_START;

/**
 * Where {@link VersionHistory#put} reads a key's current points and records the changes that place a new one.
 * A put on its own reads the database and records into a batch written before the next put; a restoration
 * records a whole changelog batch into one indexed batch and reads through it, so each put sees the ones
 * before it and the batch is written once.
 */
interface VersionEdits {

    byte[] get(byte[] key);

    /** An iterator over the older versions (the history range). */
    DbIterator history();

    void put(byte[] key, byte[] value);

    void delete(byte[] key);

    /** Reads {@code db}; records into {@code batch}, which must be written before the next put reads. */
    static VersionEdits into(Db db, WriteBatch batch) {
        return new VersionEdits() {
            @Override
            public byte[] get(byte[] key) {
                return db.get(key);
            }

            @Override
            public DbIterator history() {
                return db.iterator(historyRange());
            }

            @Override
            public void put(byte[] key, byte[] value) {
                batch.put(key, value);
            }

            @Override
            public void delete(byte[] key) {
                batch.delete(key);
            }
        };
    }

    /** Reads {@code db} with {@code pending} laid over it; records into {@code pending}. */
    static VersionEdits through(Db db, WriteBatchWithIndex pending) {
        return new VersionEdits() {
            @Override
            public byte[] get(byte[] key) {
                return pending.get(db, key);
            }

            @Override
            public DbIterator history() {
                return pending.iterator(db, historyRange(), db.defaultColumnFamily());
            }

            @Override
            public void put(byte[] key, byte[] value) {
                pending.put(key, value);
            }

            @Override
            public void delete(byte[] key) {
                pending.delete(key);
            }
        };
    }

    private static ReadOptions historyRange() {
        return ReadOptions.DEFAULT.withLowerBound(HISTORY_START).withUpperBound(HISTORY_END);
    }
}

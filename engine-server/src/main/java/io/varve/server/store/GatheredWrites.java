package io.varve.server.store;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.Transaction;
import io.varve.core.WriteBatch;
import io.varve.core.WriteBatchWithIndex;
import io.varve.core.WriteOptions;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.RangeLatch;
import io.varve.core.metrics.EngineStatistics;
import io.varve.core.txn.TransactionOptions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The commits of several commands gathered into one batch that their own reads already see, so the commands
 * behave as if each had committed while nothing is written until {@link Keyspace#commitTogether} writes the
 * whole batch at once. A replicated EXEC uses it: its queued commands become one Raft entry, applied on every
 * member whole or not at all, instead of one entry each, of which a leader deposed half-way would leave a
 * prefix. A run of one connection's writes to one key uses it to pay one commit for all of them.
 *
 * <p>{@link #view} is the database as the gathered batch would leave it: point reads and iterators read the
 * batch laid over the database (at the snapshot a read names, if any); every other call is the database's
 * own. It refuses direct writes: the keyspace's commits are the only way in. Not thread-safe: one command
 * thread uses it, under the command gate's exclusive side or, for a run of writes to one key, that key's
 * stripe lock, so what its commands read under it does not change except by background deletes of keys
 * that had already expired.
 */
final class GatheredWrites {

    private final Db db;
    /** What the view reads: every gathered write, indexed. */
    private final WriteBatchWithIndex batch = new WriteBatchWithIndex();
    /**
     * What is written at the end: each key's last put (or null for a delete), by family name, in the order the
     * keys were first written. The batch is written atomically, so no reader can tell it from every write in
     * order; commands that rewrite one record many times (a run's metadata, a HyperLogLog's 12 KiB) so log and
     * insert it once.
     */
    private final Map<String, LinkedHashMap<ByteBuffer, byte[]>> net = new LinkedHashMap<>();
    private final Db view;

    GatheredWrites(Db db) {
        this.db = db;
        this.view = new View();
    }

    Db view() {
        return view;
    }

    /** Adds a command's commit; later reads through {@link #view} see it. */
    void add(WriteBatch commit) {
        commit.forEach(new WriteBatch.Visitor() {
            @Override
            public void put(String family, byte[] key, byte[] value) {
                batch.put(family(family), key, value);
                last(family).put(ByteBuffer.wrap(key.clone()), value.clone());
            }

            @Override
            public void delete(String family, byte[] key) {
                batch.delete(family(family), key);
                last(family).put(ByteBuffer.wrap(key.clone()), null);
            }

            @Override
            public void deleteRange(String family, byte[] begin, byte[] end) {
                throw new IllegalArgumentException("a range deletion cannot be gathered");
            }
        });
    }

    private LinkedHashMap<ByteBuffer, byte[]> last(String family) {
        return net.computeIfAbsent(family, f -> new LinkedHashMap<>());
    }

    /** The net effect of everything gathered, as one batch: each key's last put or delete. */
    WriteBatch batch() {
        WriteBatch out = new WriteBatch();
        for (Map.Entry<String, LinkedHashMap<ByteBuffer, byte[]>> f : net.entrySet()) {
            ColumnFamily family = family(f.getKey());
            for (Map.Entry<ByteBuffer, byte[]> e : f.getValue().entrySet()) {
                if (e.getValue() == null) {
                    out.delete(family, e.getKey().array());
                } else {
                    out.put(family, e.getKey().array(), e.getValue());
                }
            }
        }
        return out;
    }

    private ColumnFamily family(String name) {
        if (name.equals(WriteBatch.DEFAULT_FAMILY)) {
            return db.defaultColumnFamily();
        }
        return db.columnFamily(name).orElseThrow(() -> new IllegalArgumentException("no column family " + name));
    }

    private static UnsupportedOperationException writesGoThroughCommits() {
        return new UnsupportedOperationException("gathered writes take commits through the keyspace only");
    }

    /** The database with the gathered batch laid over it. */
    private final class View implements Db {

        @Override
        public byte[] get(ReadOptions options, ColumnFamily family, byte[] key) {
            return batch.get(db, options, family, key);
        }

        @Override
        public long get(ReadOptions options, ColumnFamily family, MemorySegment key, MemorySegment destination) {
            byte[] value = get(options, family, key.toArray(ValueLayout.JAVA_BYTE));
            if (value == null) {
                return -1;
            }
            long copied = Math.min(value.length, destination.byteSize());
            MemorySegment.copy(MemorySegment.ofArray(value), 0, destination, 0, copied);
            return value.length;
        }

        @Override
        public List<byte[]> multiGet(ReadOptions options, ColumnFamily family, List<byte[]> keys) {
            List<byte[]> values = new ArrayList<>(keys.size());
            for (byte[] key : keys) {
                values.add(get(options, family, key));
            }
            return values;
        }

        @Override
        public DbIterator iterator(ReadOptions options, ColumnFamily family) {
            return batch.iterator(db, options, family);
        }

        @Override
        public Snapshot snapshot() {
            return db.snapshot();
        }

        @Override
        public EngineStatistics statistics() {
            return db.statistics();
        }

        @Override
        public ColumnFamily defaultColumnFamily() {
            return db.defaultColumnFamily();
        }

        @Override
        public Optional<ColumnFamily> columnFamily(String name) {
            return db.columnFamily(name);
        }

        @Override
        public List<ColumnFamily> columnFamilies() {
            return db.columnFamilies();
        }

        @Override
        public String getProperty(ColumnFamily family, String name) {
            return db.getProperty(family, name);
        }

        @Override
        public long getLongProperty(ColumnFamily family, String name) {
            return db.getLongProperty(family, name);
        }

        @Override
        public List<Long> getApproximateSizes(ColumnFamily family, List<Range> ranges) {
            return db.getApproximateSizes(family, ranges);
        }

        @Override
        public void syncWal() {
            db.syncWal();
        }

        @Override
        public void flush() {
            db.flush();
        }

        @Override
        public void compactRange(ColumnFamily family, byte[] begin, byte[] end) {
            db.compactRange(family, begin, end);
        }

        @Override
        public RangeLatch rangeLatch() {
            return db.rangeLatch();
        }

        @Override
        public void checkpoint(Path target, boolean flushFirst) throws java.io.IOException {
            db.checkpoint(target, flushFirst);
        }

        @Override
        public void write(WriteBatch writes, WriteOptions options) {
            throw writesGoThroughCommits();
        }

        @Override
        public void deleteRange(ColumnFamily family, byte[] begin, byte[] end) {
            throw writesGoThroughCommits();
        }

        @Override
        public void put(WriteOptions options, ColumnFamily family, byte[] key, byte[] value) {
            throw writesGoThroughCommits();
        }

        @Override
        public void put(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment value) {
            throw writesGoThroughCommits();
        }

        @Override
        public void merge(WriteOptions options, ColumnFamily family, MemorySegment key, MemorySegment operand) {
            throw writesGoThroughCommits();
        }

        @Override
        public void delete(WriteOptions options, ColumnFamily family, byte[] key) {
            throw writesGoThroughCommits();
        }

        @Override
        public Transaction beginTransaction(WriteOptions options, TransactionOptions transactionOptions) {
            throw writesGoThroughCommits();
        }

        @Override
        public int deleteFilesInRange(ColumnFamily family, byte[] begin, byte[] end) {
            throw writesGoThroughCommits();
        }

        @Override
        public ColumnFamily createColumnFamily(String name, ColumnFamilyOptions options) {
            throw writesGoThroughCommits();
        }

        @Override
        public void dropColumnFamily(ColumnFamily family) {
            throw writesGoThroughCommits();
        }

        @Override
        public void ingestExternalFiles(ColumnFamily family, List<Path> files, IngestOptions options) {
            throw writesGoThroughCommits();
        }

        @Override
        public void close() {
            throw new UnsupportedOperationException("the view does not own the database");
        }
    }
}

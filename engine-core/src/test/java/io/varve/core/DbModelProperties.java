package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random operation sequences against a {@code TreeMap} oracle: every read the database answers must equal
 * what the oracle says, including reads at old snapshots, iteration in both directions with bounds, after
 * flushes (reads then come from level-0 tables, merged with memtables) and after reopening. Tiny memtables
 * force rotations and background flushes too.
 */
class DbModelProperties {

    sealed interface Op permits Put, Delete, Batch, Get, TakeSnapshot, ReadSnapshot, Scan, Walk, Flush, Compact, Reopen {
    }

    record Put(ModelKey key, byte[] value) implements Op {
    }

    record Delete(ModelKey key) implements Op {
    }

    record Batch(List<Op> ops) implements Op {
    }

    record Get(ModelKey key) implements Op {
    }

    record TakeSnapshot() implements Op {
    }

    record ReadSnapshot(int index, ModelKey key) implements Op {
    }

    record Scan(ModelKey lower, ModelKey upper, boolean backward) implements Op {
    }

    /** A random walk of next/prev moves after a seek. */
    record Walk(ModelKey start, List<Boolean> forwardMoves) implements Op {
    }

    record Reopen() implements Op {
    }

    /** Moves memtables into a level-0 table, so later reads come from tables. */
    record Flush() implements Op {
    }

    /** A full manual compaction: data ends in one level, with what no snapshot needs dropped. */
    record Compact() implements Op {
    }

    @Property(tries = 60)
    void databaseAgreesWithTreeMap(@ForAll("operations") List<Op> ops, @ForAll boolean unordered) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/db");
        // Tiny levels and a level-0 trigger of 2: background compactions run during most sequences.
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withUnorderedWrite(unordered)
                .withCompactionSettings(new io.varve.core.compaction.CompactionSettings(2, 64 << 10, 4, 16 << 10))
                .withMaxBackgroundCompactions(2);
        TreeMap<ModelKey, byte[]> model = new TreeMap<>();
        List<TreeMap<ModelKey, byte[]>> snapshotModels = new ArrayList<>();
        List<Snapshot> snapshots = new ArrayList<>();
        Db db = Db.open(dir, options);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Put p -> {
                        db.put(p.key.bytes(), p.value);
                        model.put(p.key, p.value);
                    }
                    case Delete d -> {
                        db.delete(d.key.bytes());
                        model.remove(d.key);
                    }
                    case Batch b -> {
                        WriteBatch batch = new WriteBatch();
                        for (Op inner : b.ops) {
                            if (inner instanceof Put p) {
                                batch.put(p.key.bytes(), p.value);
                                model.put(p.key, p.value);
                            } else if (inner instanceof Delete d) {
                                batch.delete(d.key.bytes());
                                model.remove(d.key);
                            }
                        }
                        db.write(batch, WriteOptions.DEFAULT);
                    }
                    case Get g -> {
                        ModelReads.assertValue(model.get(g.key), db.get(g.key.bytes()), g.key);
                        assertMemtableOnly(model.get(g.key), db, ReadOptions.DEFAULT, g.key);
                    }
                    case TakeSnapshot t -> {
                        snapshots.add(db.snapshot());
                        snapshotModels.add(new TreeMap<>(model));
                    }
                    case ReadSnapshot r -> {
                        if (!snapshots.isEmpty()) {
                            int i = r.index % snapshots.size();
                            ModelReads.assertValue(snapshotModels.get(i).get(r.key),
                                    db.get(ReadOptions.at(snapshots.get(i)), r.key.bytes()), r.key);
                            assertMemtableOnly(snapshotModels.get(i).get(r.key), db,
                                    ReadOptions.at(snapshots.get(i)), r.key);
                            ModelReads.scan(db, ReadOptions.at(snapshots.get(i)), snapshotModels.get(i), false);
                        }
                    }
                    case Scan s -> {
                        ReadOptions read = ReadOptions.DEFAULT;
                        NavigableMap<ModelKey, byte[]> expected = model;
                        if (s.lower != null) {
                            read = read.withLowerBound(s.lower.bytes());
                            expected = expected.tailMap(s.lower, true);
                        }
                        if (s.upper != null) {
                            read = read.withUpperBound(s.upper.bytes());
                            expected = s.lower != null && s.lower.compareTo(s.upper) > 0
                                    ? new TreeMap<>() : expected.headMap(s.upper, false);
                        }
                        ModelReads.scan(db, read, expected, s.backward);
                    }
                    case Walk w -> ModelReads.walk(db, model, w.start(), w.forwardMoves());
                    case Flush f -> db.flush();
                    case Compact c -> db.compactRange(null, null);
                    case Reopen r -> {
                        snapshots.clear();
                        snapshotModels.clear();
                        db.close();
                        db = Db.open(dir, options);
                    }
                }
            }
            db.close();
            db = Db.open(dir, options);
            ModelReads.scan(db, ReadOptions.DEFAULT, model, false);
        } finally {
            db.close();
        }
    }

    /** Memtable-only and cached-only reads may be incomplete, but what they do answer must be the model's. */
    private static void assertMemtableOnly(byte[] expected, Db db, ReadOptions read, ModelKey key) {
        for (ReadOptions restricted : List.of(read.withMemtableOnly(), read.withCachedOnly())) {
            byte[] out = new byte[expected == null ? 8 : expected.length];
            long length = db.get(restricted, MemorySegment.ofArray(key.bytes()), MemorySegment.ofArray(out));
            if (length == ReadOptions.INCOMPLETE) {
                continue;
            }
            if (expected == null) {
                assertEquals(-1, length, () -> restricted + " read of key " + key + " should say absent");
            } else {
                assertEquals(expected.length, length, () -> restricted + " length of key " + key);
                assertArrayEquals(expected, out, () -> restricted + " value of key " + key);
            }
        }
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<ModelKey> keys = Arbitraries.of((byte) 0x00, (byte) 0x01, (byte) 0x7F, (byte) 0x80, (byte) 0xFF)
                .list().ofMinSize(0).ofMaxSize(3).map(list -> {
                    byte[] b = new byte[list.size()];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = list.get(i);
                    }
                    return new ModelKey(b);
                });
        Arbitrary<byte[]> values = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.bytes().array(byte[].class).ofMaxSize(16)),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMinSize(2000).ofMaxSize(9000)));
        Arbitrary<Op> put = Combinators.combine(keys, values).as(Put::new);
        Arbitrary<Op> delete = keys.map(Delete::new);
        Arbitrary<Op> batch = Arbitraries.oneOf(put, delete).list().ofMinSize(1).ofMaxSize(6).map(Batch::new);
        Arbitrary<ModelKey> optionalKey = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(null)), Tuple.of(2, keys));
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(10, put),
                Tuple.of(4, delete),
                Tuple.of(4, batch),
                Tuple.of(5, keys.map(Get::new)),
                Tuple.of(1, Arbitraries.just(new TakeSnapshot())),
                Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 100), keys).as(ReadSnapshot::new)),
                Tuple.of(2, Combinators.combine(optionalKey, optionalKey, Arbitraries.of(true, false)).as(Scan::new)),
                Tuple.of(2, Combinators.combine(keys, Arbitraries.of(true, false).list().ofMaxSize(12)).as(Walk::new)),
                Tuple.of(2, Arbitraries.just(new Flush())),
                Tuple.of(1, Arbitraries.just(new Compact())),
                Tuple.of(1, Arbitraries.just(new Reopen())));
        return op.list().ofMinSize(1).ofMaxSize(120);
    }
}

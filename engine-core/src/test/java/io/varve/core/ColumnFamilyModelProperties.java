package io.varve.core;

import io.varve.core.internal.DbImpl;
import io.varve.core.compaction.CompactionSettings;
import io.varve.base.fs.MemFileSystem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Random operations on several column families against one {@code TreeMap} per family: creates and drops,
 * puts and deletes, batches spanning families, flushes, compactions (also running in the background),
 * clean reopens and crashes. Every write is synced, so a crash — landing anywhere, including between the
 * manifest records of one flush — must lose nothing: after it each family must equal its model exactly.
 */
class ColumnFamilyModelProperties {

    private static final Path DIR = Path.of("/cf");
    private static final List<String> NAMES = List.of("default", "a", "b", "c");

    sealed interface Op permits Create, Drop, Put, Delete, CrossBatch, Check, Flush, Compact, Reopen, Crash {
    }

    record Create(String name) implements Op {
    }

    record Drop(String name) implements Op {
    }

    record Put(String family, int key, int value) implements Op {
    }

    record Delete(String family, int key) implements Op {
    }

    /** One batch of puts (value >= 0) and deletes (value < 0) over several families. */
    record CrossBatch(List<Put> ops) implements Op {
    }

    record Check(String family) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact(String family) implements Op {
    }

    record Reopen() implements Op {
    }

    record Crash(long seed) implements Op {
    }

    @Property(tries = 30)
    void everyFamilyAgreesWithItsModel(@ForAll("operations") List<Op> ops) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        // Tiny memtables and levels: rotations, flushes and background compactions happen all the time.
        CompactionSettings small = new CompactionSettings(2, 64 << 10, 4, 16 << 10);
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(small).withMaxBackgroundCompactions(2)
                .withColumnFamily("a", ColumnFamilyOptions.defaults().withWriteBufferSize(128 << 10)
                        .withCompactionSettings(small));
        Map<String, TreeMap<Integer, Integer>> model = new TreeMap<>();
        model.put("default", new TreeMap<>());
        Db db = Db.open(DIR, options);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Create c -> {
                        if (model.containsKey(c.name)) {
                            Db current = db;
                            assertThrows(IllegalArgumentException.class,
                                    () -> current.createColumnFamily(c.name, ColumnFamilyOptions.defaults()));
                        } else {
                            db.createColumnFamily(c.name, ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10)
                                    .withCompactionSettings(small));
                            model.put(c.name, new TreeMap<>());
                        }
                    }
                    case Drop d -> {
                        ColumnFamily family = db.columnFamily(d.name).orElse(null);
                        if (d.name.equals("default")) {
                            Db current = db;
                            assertThrows(IllegalArgumentException.class, () -> current.dropColumnFamily(family));
                        } else if (family != null) {
                            db.dropColumnFamily(family);
                            model.remove(d.name);
                            Db current = db;
                            assertThrows(IllegalArgumentException.class, () -> current.get(family, key(0)));
                        }
                    }
                    case Put p -> {
                        if (model.containsKey(p.family)) {
                            db.put(WriteOptions.SYNC, family(db, p.family), key(p.key), value(p.value));
                            model.get(p.family).put(p.key, p.value);
                        }
                    }
                    case Delete d -> {
                        if (model.containsKey(d.family)) {
                            db.delete(WriteOptions.SYNC, family(db, d.family), key(d.key));
                            model.get(d.family).remove(d.key);
                        }
                    }
                    case CrossBatch b -> {
                        WriteBatch batch = new WriteBatch();
                        for (Put p : b.ops) {
                            if (!model.containsKey(p.family)) {
                                continue;
                            }
                            if (p.value >= 0) {
                                batch.put(family(db, p.family), key(p.key), value(p.value));
                                model.get(p.family).put(p.key, p.value);
                            } else {
                                batch.delete(family(db, p.family), key(p.key));
                                model.get(p.family).remove(p.key);
                            }
                        }
                        db.write(batch, WriteOptions.SYNC);
                    }
                    case Check c -> {
                        if (model.containsKey(c.family)) {
                            assertFamily(db, c.family, model.get(c.family));
                        }
                    }
                    case Flush f -> db.flush();
                    case Compact c -> {
                        if (model.containsKey(c.family)) {
                            db.compactRange(family(db, c.family), null, null);
                        }
                    }
                    case Reopen r -> {
                        db.close();
                        db = Db.open(DIR, options);
                        assertAll(db, model);
                    }
                    case Crash c -> {
                        fs.crash(new Random(c.seed));
                        TestStates.closeAfterCrash(db);
                        db = Db.open(DIR, options);
                        assertAll(db, model);
                    }
                }
            }
            db.close();
            db = Db.open(DIR, options);
            assertAll(db, model);
        } finally {
            db.close();
        }
    }

    private static void assertAll(Db db, Map<String, TreeMap<Integer, Integer>> model) {
        assertEquals(List.copyOf(model.keySet()), db.columnFamilies().stream().map(ColumnFamily::name).sorted().toList(),
                "live column families");
        assertEquals("default", db.columnFamilies().getFirst().name());
        for (Map.Entry<String, TreeMap<Integer, Integer>> e : model.entrySet()) {
            assertFamily(db, e.getKey(), e.getValue());
        }
    }

    private static void assertFamily(Db db, String name, TreeMap<Integer, Integer> expected) {
        ColumnFamily family = family(db, name);
        TreeMap<Integer, Integer> actual = new TreeMap<>();
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT, family)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                actual.put(Integer.parseInt(new String(it.key()).substring(1)), Integer.parseInt(new String(it.value())));
            }
        }
        assertEquals(expected, actual, "contents of column family " + name);
        for (int k = 0; k < 3; k++) {
            int probe = expected.isEmpty() ? k : expected.firstKey() + k;
            byte[] value = db.get(family, key(probe));
            assertEquals(expected.get(probe), value == null ? null : Integer.parseInt(new String(value)),
                    "get " + probe + " in " + name);
        }
    }

    private static ColumnFamily family(Db db, String name) {
        return db.columnFamily(name).orElseThrow();
    }

    private static byte[] key(int k) {
        return String.format("k%05d", k).getBytes();
    }

    private static byte[] value(int v) {
        // Long enough that a few hundred writes fill a 64 KiB memtable.
        return (v + "").getBytes();
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<String> names = Arbitraries.of(NAMES);
        Arbitrary<String> nonDefault = Arbitraries.of(NAMES.subList(1, NAMES.size()));
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, 400);
        Arbitrary<Integer> values = Arbitraries.integers().between(0, 1_000_000);
        Arbitrary<Put> put = Combinators.combine(names, keys, values).as(Put::new);
        Arbitrary<Put> batchOp = Combinators.combine(names, keys, Arbitraries.integers().between(-1, 1_000_000))
                .as(Put::new);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, nonDefault.map(Create::new)),
                net.jqwik.api.Tuple.of(1, names.map(Drop::new)),
                net.jqwik.api.Tuple.of(40, put.map(p -> (Op) p)),
                net.jqwik.api.Tuple.of(8, Combinators.combine(names, keys).as(Delete::new)),
                net.jqwik.api.Tuple.of(10, batchOp.list().ofMinSize(1).ofMaxSize(6).map(CrossBatch::new)),
                net.jqwik.api.Tuple.of(4, names.map(Check::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new Flush())),
                net.jqwik.api.Tuple.of(1, names.map(Compact::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Reopen())),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().map(Crash::new)));
        return op.list().ofMinSize(20).ofMaxSize(400);
    }
}

package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A database without a write-ahead log ({@link Options#withWriteAheadLog}) against a model of three column
 * families: random puts, deletes and batches spanning families, flushes, {@code syncWal}, clean reopens and
 * crashes. A clean reopen keeps everything (close flushes). A crash keeps the state after some prefix of the
 * writes, never shorter than what the last explicit flush or sync made durable and never longer than what was
 * written; the memtables flush on their own too (64 KiB), so the prefix may end anywhere in between, but
 * always at a batch boundary and in every family at once.
 */
class NoLogModelProperties {

    private static final Path DIR = Path.of("/nolog");
    private static final List<String> FAMILIES = List.of("default", "a", "b");

    sealed interface Op permits Write, Flush, SyncWal, Reopen, Crash {
    }

    /** One batch: puts (value >= 0) and deletes (value < 0), each in the family it names. */
    record Write(List<Edit> edits) implements Op {
    }

    record Edit(String family, int key, int value) {
    }

    record Flush() implements Op {
    }

    record SyncWal() implements Op {
    }

    record Reopen() implements Op {
    }

    record Crash(long seed) implements Op {
    }

    @Property(tries = 40)
    void recoversAPrefixNoShorterThanTheLastFlush(@ForAll("operations") List<Op> ops) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        CompactionSettings small = new CompactionSettings(2, 64 << 10, 4, 16 << 10);
        ColumnFamilyOptions familyOptions = ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10)
                .withCompactionSettings(small);
        Options options = Options.defaults().withFileSystem(fs).withWriteAheadLog(false)
                .withWriteBufferSize(64 << 10).withCompactionSettings(small).withMaxBackgroundCompactions(2)
                .withColumnFamily("a", familyOptions).withColumnFamily("b", familyOptions);
        Db db = Db.open(DIR, options);
        db.createColumnFamily("a", familyOptions);
        db.createColumnFamily("b", familyOptions);
        Map<String, TreeMap<Integer, Integer>> model = empty();
        // The states a crash may recover: [0] is the durable one, each write appends the state after it.
        List<Map<String, TreeMap<Integer, Integer>>> candidates = new ArrayList<>(List.of(copy(model)));
        try {
            for (Op op : ops) {
                switch (op) {
                    case Write w -> {
                        WriteBatch batch = new WriteBatch();
                        for (Edit e : w.edits) {
                            ColumnFamily family = db.columnFamily(e.family).orElseThrow();
                            if (e.value >= 0) {
                                batch.put(family, key(e.key), Integer.toString(e.value).getBytes());
                                model.get(e.family).put(e.key, e.value);
                            } else {
                                batch.delete(family, key(e.key));
                                model.get(e.family).remove(e.key);
                            }
                        }
                        db.write(batch, WriteOptions.DEFAULT);
                        candidates.add(copy(model));
                    }
                    case Flush f -> {
                        db.flush();
                        candidates = new ArrayList<>(List.of(copy(model)));
                    }
                    case SyncWal s -> {
                        db.syncWal();
                        candidates = new ArrayList<>(List.of(copy(model)));
                    }
                    case Reopen r -> {
                        db.close();
                        db = Db.open(DIR, options);
                        assertEquals(model, contents(db), "after a clean reopen");
                        candidates = new ArrayList<>(List.of(copy(model)));
                    }
                    case Crash c -> {
                        fs.crash(new Random(c.seed));
                        TestStates.closeAfterCrash(db);
                        db = Db.open(DIR, options);
                        Map<String, TreeMap<Integer, Integer>> recovered = contents(db);
                        int possible = candidates.size();
                        assertTrue(candidates.contains(recovered), () -> "recovered " + recovered
                                + " is none of the " + possible + " states from the last flush on");
                        model = copy(recovered);
                        candidates = new ArrayList<>(List.of(copy(model)));
                    }
                }
            }
            db.close();
            db = Db.open(DIR, options);
            assertEquals(model, contents(db), "after the final reopen");
        } finally {
            db.close();
        }
    }

    private static Map<String, TreeMap<Integer, Integer>> empty() {
        Map<String, TreeMap<Integer, Integer>> model = new TreeMap<>();
        FAMILIES.forEach(f -> model.put(f, new TreeMap<>()));
        return model;
    }

    private static Map<String, TreeMap<Integer, Integer>> copy(Map<String, TreeMap<Integer, Integer>> model) {
        Map<String, TreeMap<Integer, Integer>> copy = new TreeMap<>();
        model.forEach((family, contents) -> copy.put(family, new TreeMap<>(contents)));
        return copy;
    }

    private static Map<String, TreeMap<Integer, Integer>> contents(Db db) {
        Map<String, TreeMap<Integer, Integer>> state = new TreeMap<>();
        for (String name : FAMILIES) {
            TreeMap<Integer, Integer> family = new TreeMap<>();
            try (DbIterator it = db.iterator(ReadOptions.DEFAULT, db.columnFamily(name).orElseThrow())) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    family.put(Integer.parseInt(new String(it.key()).substring(1)),
                            Integer.parseInt(new String(it.value())));
                }
            }
            state.put(name, family);
        }
        return state;
    }

    private static byte[] key(int k) {
        return String.format("k%05d", k).getBytes();
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Edit> edit = Combinators.combine(Arbitraries.of(FAMILIES), Arbitraries.integers().between(0, 300),
                Arbitraries.integers().between(-1, 1_000_000)).as(Edit::new);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(50, edit.list().ofMinSize(1).ofMaxSize(5).map(Write::new)),
                Tuple.of(2, Arbitraries.just(new Flush())),
                Tuple.of(1, Arbitraries.just(new SyncWal())),
                Tuple.of(1, Arbitraries.just(new Reopen())),
                Tuple.of(2, Arbitraries.longs().map(Crash::new)));
        return op.list().ofMinSize(20).ofMaxSize(300);
    }
}

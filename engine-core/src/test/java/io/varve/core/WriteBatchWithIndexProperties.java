package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeOperators;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A batch laid over a database reads like a {@code TreeMap} holding the database's contents with the batch's
 * operations applied: point lookups, full scans both ways, and random walks of seeks, nexts and prevs with
 * bounds. Writing the batch then makes the database equal to that map. Puts, deletes and merges (an append
 * operator) are drawn both for the database and for the batch, so batch operands land on database values,
 * on database operands, on the batch's own puts and deletes, and on nothing.
 */
class WriteBatchWithIndexProperties {

    /** A write: key, then value (-1 deletes); a merge appends the value instead of putting it. */
    record Op(int key, int value, boolean merge) {
    }

    @Provide
    Arbitrary<List<Op>> writes() {
        return Arbitraries.integers().between(0, 30)
                .flatMap(k -> Arbitraries.integers().between(-1, 99).flatMap(v -> Arbitraries.of(false, false, true)
                        .map(merge -> new Op(k, v, merge && v >= 0))))
                .list().ofMaxSize(60);
    }

    @Provide
    Arbitrary<List<Integer>> walk() {
        return Arbitraries.integers().between(0, 40).list().ofMaxSize(40);
    }

    @Property(tries = 150)
    void readsLikeTheDatabaseWithTheBatchApplied(@ForAll("writes") List<Op> inDb, @ForAll("writes") List<Op> inBatch,
                                                  @ForAll boolean flush, @ForAll("walk") List<Integer> walk,
                                                  @ForAll @IntRange(min = -1, max = 31) int lower,
                                                  @ForAll @IntRange(min = -1, max = 31) int upper) throws IOException {
        try (Db db = Db.open(Path.of("/db"), Options.defaults().withFileSystem(new MemFileSystem())
                .withWriteBufferSize(256 << 10).withMergeOperator(MergeOperators.append(new byte[] {','})))) {
            TreeMap<String, String> model = new TreeMap<>();
            for (Op op : inDb) {
                apply(op, model);
                if (op.value() < 0) {
                    db.delete(key(op.key()));
                } else if (op.merge()) {
                    db.merge(key(op.key()), value(op.value()));
                } else {
                    db.put(key(op.key()), value(op.value()));
                }
            }
            if (flush) {
                db.flush();
            }
            WriteBatchWithIndex batch = new WriteBatchWithIndex();
            for (Op op : inBatch) {
                apply(op, model);
                if (op.value() < 0) {
                    batch.delete(key(op.key()));
                } else if (op.merge()) {
                    batch.merge(key(op.key()), value(op.value()));
                } else {
                    batch.put(key(op.key()), value(op.value()));
                }
            }
            for (int k = 0; k <= 31; k++) {
                byte[] got = batch.get(db, key(k));
                assertEquals(model.get(text(key(k))), got == null ? null : text(got), "get " + k);
            }
            ReadOptions options = ReadOptions.DEFAULT.withLowerBound(lower < 0 ? null : key(lower))
                    .withUpperBound(upper < 0 ? null : key(upper));
            NavigableMap<String, String> bounded = bounded(model, lower, upper);
            try (DbIterator it = batch.iterator(db, options, db.defaultColumnFamily())) {
                assertEquals(List.copyOf(bounded.entrySet()), scanForward(it));
                assertEquals(List.copyOf(bounded.descendingMap().entrySet()), scanBackward(it));
                checkWalk(it, bounded, walk);
            }
            db.write(batch.writeBatch(), WriteOptions.DEFAULT);
            TreeMap<String, String> written = new TreeMap<>();
            try (DbIterator it = db.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    written.put(text(it.key()), text(it.value()));
                }
            }
            assertEquals(model, written);
        }
    }

    /** Seeks (even steps) and next/prev moves (odd steps), compared with the model after each. */
    private static void checkWalk(DbIterator it, NavigableMap<String, String> model, List<Integer> walk) {
        String expected = null;
        for (int i = 0; i < walk.size(); i++) {
            int step = walk.get(i);
            if (i % 2 == 0 || expected == null) {
                String target = text(key(step % 32));
                if (step % 3 == 0) {
                    it.seekForPrev(key(step % 32));
                    expected = model.floorKey(target);
                } else {
                    it.seek(key(step % 32));
                    expected = model.ceilingKey(target);
                }
            } else if (step % 2 == 0) {
                it.next();
                expected = model.higherKey(expected);
            } else {
                it.prev();
                expected = model.lowerKey(expected);
            }
            assertEquals(expected != null, it.valid(), "step " + i);
            if (expected != null) {
                assertEquals(expected, text(it.key()), "step " + i);
                assertEquals(model.get(expected), text(it.value()), "step " + i);
                IteratorCopies.assertCopiesMatch(it);
            }
        }
    }

    private static List<Map.Entry<String, String>> scanForward(DbIterator it) {
        List<Map.Entry<String, String>> seen = new ArrayList<>();
        for (it.seekToFirst(); it.valid(); it.next()) {
            seen.add(Map.entry(text(it.key()), text(it.value())));
        }
        return seen;
    }

    private static List<Map.Entry<String, String>> scanBackward(DbIterator it) {
        List<Map.Entry<String, String>> seen = new ArrayList<>();
        for (it.seekToLast(); it.valid(); it.prev()) {
            seen.add(Map.entry(text(it.key()), text(it.value())));
        }
        return seen;
    }

    private static NavigableMap<String, String> bounded(TreeMap<String, String> model, int lower, int upper) {
        NavigableMap<String, String> view = model;
        if (lower >= 0) {
            view = view.tailMap(text(key(lower)), true);
        }
        if (upper >= 0) {
            if (lower >= 0 && lower >= upper) {
                return new TreeMap<>();
            }
            view = view.headMap(text(key(upper)), false);
        }
        return view;
    }

    private static void apply(Op op, TreeMap<String, String> model) {
        if (op.value() < 0) {
            model.remove(text(key(op.key())));
        } else if (op.merge()) {
            model.merge(text(key(op.key())), text(value(op.value())), (old, operand) -> old + "," + operand);
        } else {
            model.put(text(key(op.key())), text(value(op.value())));
        }
    }

    private static byte[] key(int k) {
        return String.format("k%02d", k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int v) {
        return ("v" + v).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

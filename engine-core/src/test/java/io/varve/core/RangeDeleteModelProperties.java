package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random puts, deletes and range deletions (alone and inside batches), with snapshots, flushes, compactions and
 * reopens, against a {@code TreeMap} oracle: after every step each key's get and both iteration directions
 * (with random bounds) must equal the oracle, now and at every live snapshot, and so must a walk that turns
 * back and forth (jumps over deleted stretches happen in both directions and must survive a turn). Keys come
 * from a small space so ranges overlap each other and the point writes around them.
 */
class RangeDeleteModelProperties {

    private static final int KEYS = 24;

    sealed interface Op permits Put, Delete, DeleteRange, RangeInBatch, TakeSnapshot, DropSnapshot, Flush, Compact,
            Reopen {
    }

    record Put(int key, int value) implements Op {
    }

    record Delete(int key) implements Op {
    }

    record DeleteRange(int begin, int end) implements Op {
    }

    /** A batch that puts {@code key}, then deletes a range, then puts {@code after}: order inside a batch counts. */
    record RangeInBatch(int key, int begin, int end, int after) implements Op {
    }

    record TakeSnapshot() implements Op {
    }

    record DropSnapshot(int which) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact() implements Op {
    }

    record Reopen() implements Op {
    }

    private record Taken(Snapshot snapshot, TreeMap<String, String> state) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Integer> bound = Arbitraries.integers().between(0, KEYS);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 999).flatMap(v -> key.map(k -> new Put(k, v)))),
                Tuple.of(2, key.map(Delete::new)),
                Tuple.of(3, bound.flatMap(b -> bound.map(e -> new DeleteRange(Math.min(b, e),
                        Math.max(b, e) + 1)))),
                Tuple.of(1, key.flatMap(k -> bound.flatMap(b -> key.map(a -> new RangeInBatch(k, b,
                        b + 3, a))))),
                Tuple.of(1, Arbitraries.just(new TakeSnapshot())),
                Tuple.of(1, Arbitraries.integers().between(0, 3).map(DropSnapshot::new)),
                Tuple.of(1, Arbitraries.just(new Flush())),
                Tuple.of(1, Arbitraries.just(new Compact())),
                Tuple.of(1, Arbitraries.just(new Reopen())));
        return op.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 150)
    void readsMatchTheModel(@ForAll("ops") List<Op> ops) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/rangedel");
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
        TreeMap<String, String> model = new TreeMap<>();
        List<Taken> snapshots = new ArrayList<>();
        Db db = Db.open(dir, options);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Put p -> {
                        db.put(bytes(key(p.key())), bytes("v" + p.value()));
                        model.put(key(p.key()), "v" + p.value());
                    }
                    case Delete d -> {
                        db.delete(bytes(key(d.key())));
                        model.remove(key(d.key()));
                    }
                    case DeleteRange r -> {
                        db.deleteRange(bytes(key(r.begin())), bytes(key(r.end())));
                        model.subMap(key(r.begin()), key(r.end())).clear();
                    }
                    case RangeInBatch b -> {
                        db.write(new WriteBatch().put(bytes(key(b.key())), bytes("b"))
                                .deleteRange(bytes(key(b.begin())), bytes(key(b.end())))
                                .put(bytes(key(b.after())), bytes("a")), WriteOptions.DEFAULT);
                        model.put(key(b.key()), "b");
                        model.subMap(key(b.begin()), key(b.end())).clear();
                        model.put(key(b.after()), "a");
                    }
                    case TakeSnapshot t -> snapshots.add(new Taken(db.snapshot(), new TreeMap<>(model)));
                    case DropSnapshot d -> {
                        if (!snapshots.isEmpty()) {
                            snapshots.remove(d.which() % snapshots.size()).snapshot().close();
                        }
                    }
                    case Flush f -> db.flush();
                    case Compact c -> db.compactRange(null, null);
                    case Reopen r -> {
                        snapshots.forEach(t -> t.snapshot().close());
                        snapshots.clear();
                        db.close();
                        db = Db.open(dir, options);
                    }
                }
                check(db, ReadOptions.DEFAULT, model, op);
                for (Taken taken : snapshots) {
                    check(db, ReadOptions.at(taken.snapshot()), taken.state(), op);
                }
            }
        } finally {
            snapshots.forEach(t -> t.snapshot().close());
            db.close();
        }
    }

    private static void check(Db db, ReadOptions read, TreeMap<String, String> model, Op after) {
        for (int k = 0; k < KEYS; k++) {
            byte[] value = db.get(read, bytes(key(k)));
            assertEquals(model.get(key(k)), value == null ? null : text(value), "get " + key(k) + " after " + after);
        }
        assertEquals(list(model), forward(db, read), "forward scan after " + after);
        assertEquals(list(model.descendingMap()), backward(db, read), "backward scan after " + after);
        int lower = Math.floorMod(after.hashCode(), KEYS);
        int upper = lower + 1 + Math.floorMod(after.hashCode() >>> 8, KEYS - lower);
        ReadOptions bounded = read.withLowerBound(bytes(key(lower))).withUpperBound(bytes(key(upper)));
        NavigableMap<String, String> inBounds = model.subMap(key(lower), true, key(upper), false);
        assertEquals(list(inBounds), forward(db, bounded), "bounded forward scan after " + after);
        assertEquals(list(inBounds.descendingMap()), backward(db, bounded), "bounded backward scan after " + after);
        walk(db, read, model, after);
    }

    /** Seeks to a key chosen from the step, then moves back and forth, comparing every position with the model. */
    private static void walk(Db db, ReadOptions read, TreeMap<String, String> model, Op after) {
        Random random = new Random(after.hashCode());
        try (DbIterator it = db.iterator(read)) {
            String expected;
            String start = key(random.nextInt(KEYS));
            if (random.nextBoolean()) {
                it.seek(bytes(start));
                expected = model.ceilingKey(start);
            } else {
                it.seekForPrev(bytes(start));
                expected = model.floorKey(start);
            }
            for (int step = 0; step < 16 && expected != null; step++) {
                String where = "walk step " + step + " after " + after;
                assertEquals(expected, it.valid() ? text(it.key()) : null, where);
                assertEquals(model.get(expected), text(it.value()), where);
                if (random.nextBoolean()) {
                    it.next();
                    expected = model.higherKey(expected);
                } else {
                    it.prev();
                    expected = model.lowerKey(expected);
                }
            }
            assertEquals(expected, it.valid() ? text(it.key()) : null, "walk end after " + after);
        }
    }

    private static List<String> list(Map<String, String> map) {
        List<String> out = new ArrayList<>();
        map.forEach((k, v) -> out.add(k + "=" + v));
        return out;
    }

    private static List<String> forward(Db db, ReadOptions read) {
        List<String> out = new ArrayList<>();
        try (DbIterator it = db.iterator(read)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                out.add(text(it.key()) + "=" + text(it.value()));
            }
        }
        return out;
    }

    private static List<String> backward(Db db, ReadOptions read) {
        List<String> out = new ArrayList<>();
        try (DbIterator it = db.iterator(read)) {
            for (it.seekToLast(); it.valid(); it.prev()) {
                out.add(text(it.key()) + "=" + text(it.value()));
            }
        }
        return out;
    }

    private static String key(int k) {
        return String.format("k%02d", k);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}

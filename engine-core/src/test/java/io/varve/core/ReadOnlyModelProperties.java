package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.base.fs.FileSystem;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Read-only instances against a model: a writer applies random puts, deletes, range deletions, flushes,
 * compactions and reopens over two column families while a {@code TreeMap} per family follows along; at
 * random points a read-only instance opens and its model is the writer's as of that moment. Every later
 * check of that instance — full contents of both families, gets, multiGets, seeks with random walks in both
 * directions, reads at its own snapshot — must match that frozen model, however much the writer changed
 * since (compactions deleting the tables it opened included). Read-only instances see the directory through
 * {@link NoWriteFileSystem}, so any attempt to change it fails the property, and every write they are asked
 * for must throw.
 */
class ReadOnlyModelProperties {

    private static final Path DIR = Path.of("/db");
    private static final int KEYS = 120;

    sealed interface Op permits Put, Delete, DeleteRange, Flush, Compact, ReopenWriter, OpenReadOnly, Check,
            CloseReadOnly {
    }

    record Put(int family, int key, int valueSize) implements Op {
    }

    record Delete(int family, int key) implements Op {
    }

    record DeleteRange(int family, int from, int length) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact(int family) implements Op {
    }

    record ReopenWriter() implements Op {
    }

    record OpenReadOnly() implements Op {
    }

    /** Checks read-only instance {@code index} (modulo those open) around {@code key}. */
    record Check(int index, int key, List<Boolean> forwardMoves) implements Op {
    }

    record CloseReadOnly(int index) implements Op {
    }

    /** A read-only instance and the writer's state when it opened. */
    private record Reader(Db db, List<TreeMap<String, String>> models) {
    }

    private static Options options(FileSystem fs) {
        CompactionSettings small = new CompactionSettings(2, 64 << 10, 4, 16 << 10);
        ColumnFamilyOptions family = ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10)
                .withCompactionSettings(small);
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10).withCompactionSettings(small)
                .withColumnFamily("a", family);
    }

    @Property(tries = 40)
    void readOnlyInstancesSeeTheStateOfTheirOpen(@ForAll("operations") List<Op> ops) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        NoWriteFileSystem readOnlyFs = new NoWriteFileSystem(fs);
        Options options = options(fs);
        List<TreeMap<String, String>> models = List.of(new TreeMap<>(), new TreeMap<>());
        List<Reader> readers = new ArrayList<>();
        Db writer = Db.open(DIR, options);
        try {
            writer.createColumnFamily("a", ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10));
            for (int step = 0; step < ops.size(); step++) {
                Op op = ops.get(step);
                List<ColumnFamily> families = families(writer);
                switch (op) {
                    case Put p -> {
                        String value = value(step, p.key, p.valueSize);
                        writer.put(families.get(p.family), key(p.key), bytes(value));
                        models.get(p.family).put(keyText(p.key), value);
                    }
                    case Delete d -> {
                        writer.delete(families.get(d.family), key(d.key));
                        models.get(d.family).remove(keyText(d.key));
                    }
                    case DeleteRange r -> {
                        writer.deleteRange(families.get(r.family), key(r.from), key(r.from + r.length));
                        models.get(r.family).subMap(keyText(r.from), true, keyText(r.from + r.length), false).clear();
                    }
                    case Flush f -> writer.flush();
                    case Compact c -> writer.compactRange(families.get(c.family), null, null);
                    case ReopenWriter r -> {
                        writer.close();
                        writer = Db.open(DIR, options);
                    }
                    case OpenReadOnly o -> {
                        Db db = Db.openReadOnly(DIR, options.withFileSystem(readOnlyFs));
                        Reader reader = new Reader(db, List.of(new TreeMap<>(models.get(0)),
                                new TreeMap<>(models.get(1))));
                        readers.add(reader);
                        assertWritesRefused(db);
                        checkContents(reader);
                    }
                    case Check c -> {
                        if (!readers.isEmpty()) {
                            check(readers.get(c.index % readers.size()), c);
                        }
                    }
                    case CloseReadOnly c -> {
                        if (!readers.isEmpty()) {
                            readers.remove(c.index % readers.size()).db.close();
                        }
                    }
                }
            }
            // The writer compacts everything away once more: the readers must not notice.
            writer.compactRange(families(writer).get(0), null, null);
            writer.compactRange(families(writer).get(1), null, null);
            DbTestAccess.awaitReclaimed(writer);
            for (Reader reader : readers) {
                checkContents(reader);
            }
        } finally {
            for (Reader reader : readers) {
                reader.db.close();
            }
            writer.close();
        }
        assertEquals(List.of(), readOnlyFs.attempts(), "read-only instances tried to change the directory");
    }

    private static List<ColumnFamily> families(Db db) {
        return List.of(db.defaultColumnFamily(), db.columnFamily("a").orElseThrow());
    }

    private static void assertWritesRefused(Db db) {
        assertThrows(ReadOnlyDbException.class, () -> db.put(key(1), bytes("x")));
        assertThrows(ReadOnlyDbException.class, () -> db.delete(key(1)));
        assertThrows(ReadOnlyDbException.class, () -> db.deleteRange(key(1), key(2)));
        assertThrows(ReadOnlyDbException.class, () -> db.write(new WriteBatch().put(key(1), bytes("x")),
                WriteOptions.DEFAULT));
        assertThrows(ReadOnlyDbException.class, db::flush);
        assertThrows(ReadOnlyDbException.class, () -> db.compactRange(null, null));
    }

    private static void checkContents(Reader reader) {
        List<ColumnFamily> families = families(reader.db);
        for (int f = 0; f < 2; f++) {
            assertEquals(reader.models.get(f), contents(reader.db, families.get(f), ReadOptions.DEFAULT),
                    "family " + f);
        }
    }

    private static void check(Reader reader, Check c) {
        Db db = reader.db;
        List<ColumnFamily> families = families(db);
        int f = c.key % 2;
        TreeMap<String, String> model = reader.models.get(f);
        ColumnFamily family = families.get(f);
        assertEquals(model.get(keyText(c.key)), text(db.get(family, key(c.key))), "get " + keyText(c.key));
        List<byte[]> keys = List.of(key(c.key), key((c.key + 7) % KEYS), key((c.key * 3) % KEYS));
        List<String> expected = keys.stream().map(k -> model.get(new String(k, StandardCharsets.UTF_8))).toList();
        assertEquals(expected, db.multiGet(ReadOptions.DEFAULT, family, keys).stream().map(ReadOnlyModelProperties::text)
                .toList(), "multiGet");
        try (Snapshot snapshot = db.snapshot()) {
            assertEquals(model, contents(db, family, ReadOptions.at(snapshot)), "at a snapshot");
        }
        walk(db, family, model, c);
    }

    /** Seeks to {@code c.key}, then moves as told, comparing each position with the model's. */
    private static void walk(Db db, ColumnFamily family, NavigableMap<String, String> model, Check c) {
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT, family)) {
            it.seek(key(c.key));
            String position = model.ceilingKey(keyText(c.key));
            assertAt(it, model, position);
            for (boolean forward : c.forwardMoves) {
                if (position == null) {
                    break;
                }
                if (forward) {
                    it.next();
                    position = model.higherKey(position);
                } else {
                    it.prev();
                    position = model.lowerKey(position);
                }
                assertAt(it, model, position);
            }
        }
    }

    private static void assertAt(DbIterator it, NavigableMap<String, String> model, String position) {
        if (position == null) {
            assertEquals(false, it.valid(), "iterator past the model's end");
            return;
        }
        assertEquals(true, it.valid(), () -> "iterator ended before " + position);
        assertEquals(position, text(it.key()));
        assertEquals(model.get(position), text(it.value()));
    }

    private static TreeMap<String, String> contents(Db db, ColumnFamily family, ReadOptions read) {
        TreeMap<String, String> forward = new TreeMap<>();
        try (DbIterator it = db.iterator(read, family)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                forward.put(text(it.key()), text(it.value()));
            }
        }
        List<Map.Entry<String, String>> backward = new ArrayList<>();
        try (DbIterator it = db.iterator(read, family)) {
            for (it.seekToLast(); it.valid(); it.prev()) {
                backward.add(Map.entry(text(it.key()), text(it.value())));
            }
        }
        assertEquals(new ArrayList<>(forward.descendingMap().entrySet()), backward, "backward scan");
        return forward;
    }

    private static String keyText(int key) {
        return String.format("k%04d", key);
    }

    private static byte[] key(int key) {
        return bytes(keyText(key));
    }

    private static String value(int step, int key, int size) {
        String head = step + ":" + key + ":";
        return head + "v".repeat(Math.max(0, size - head.length()));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> family = Arbitraries.integers().between(0, 1);
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Integer> valueSize = Arbitraries.frequency(
                Tuple.of(8, 10), Tuple.of(2, 3000));
        Arbitrary<Op> put = Combinators.combine(family, key, valueSize).as(Put::new);
        Arbitrary<Op> delete = Combinators.combine(family, key).as(Delete::new);
        Arbitrary<Op> deleteRange = Combinators.combine(family, key, Arbitraries.integers().between(1, 30))
                .as(DeleteRange::new);
        Arbitrary<Op> check = Combinators.combine(Arbitraries.integers().between(0, 9), key,
                Arbitraries.of(true, false).list().ofMaxSize(12)).as(Check::new);
        return Arbitraries.frequencyOf(
                Tuple.of(40, put),
                Tuple.of(6, delete),
                Tuple.of(3, deleteRange),
                Tuple.of(3, Arbitraries.just(new Flush())),
                Tuple.of(2, family.map(Compact::new)),
                Tuple.of(1, Arbitraries.just(new ReopenWriter())),
                Tuple.of(3, Arbitraries.just(new OpenReadOnly())),
                Tuple.of(8, check),
                Tuple.of(1, Arbitraries.integers().between(0, 9).map(CloseReadOnly::new)))
                .list().ofMinSize(20).ofMaxSize(250);
    }
}

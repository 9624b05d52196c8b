package io.varve.core.mvcc;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.compaction.filters.MvccKeys;
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
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MVCC garbage collection in the TiKV shape (write family with commit records, values family with values),
 * checked against a model of the whole history: after compacting the write family with a safe point, every
 * read at a timestamp at or after the safe point answers exactly as it did before GC, no key keeps more than
 * one PUT/DELETE at or below the safe point, no ROLLBACK/LOCK at or below it survives, and the values family
 * holds exactly the values that remaining PUTs point to.
 */
class MvccGarbageCollectionProperties {

    /** One committed record of a user key: kind, start and commit timestamps, and the value of a PUT. */
    record Commit(int key, byte kind, long startTs, long commitTs, byte[] value) {
    }

    @Property(tries = 40)
    void readsAtOrAfterTheSafePointAreUnchangedAndGarbageIsGone(@ForAll("histories") List<Commit> history,
                                                                 @ForAll("fractions") int safePointPercent)
            throws IOException {
        long lastTs = history.isEmpty() ? 1 : history.getLast().commitTs;
        long safePoint = lastTs * safePointPercent / 100;
        MemFileSystem fs = new MemFileSystem();
        MvccGarbageCollector gc = new MvccGarbageCollector();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withColumnFamily("write", ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10)
                        .withCompactionFilter(gc.writeFamilyFilter()));
        try (Db db = Db.open(Path.of("/mvcc"), options)) {
            ColumnFamily write = db.createColumnFamily("write", ColumnFamilyOptions.defaults()
                    .withWriteBufferSize(64 << 10).withCompactionFilter(gc.writeFamilyFilter()));
            ColumnFamily values = db.defaultColumnFamily();
            gc.start(db, values);
            try {
                for (Commit c : history) {
                    WriteBatch batch = new WriteBatch();
                    if (c.kind == MvccKeys.PUT) {
                        batch.put(values, MvccKeys.versionedKey(userKey(c.key), c.startTs), c.value);
                    }
                    batch.put(write, MvccKeys.versionedKey(userKey(c.key), c.commitTs),
                            MvccKeys.writeRecord(c.kind, c.startTs));
                    db.write(batch, WriteOptions.DEFAULT);
                }
                gc.setSafePoint(safePoint);
                db.compactRange(write, null, null);
                gc.awaitDeletes();
                assertNull(gc.failure());

                for (int key = 0; key < 6; key++) {
                    for (long ts = safePoint; ts <= lastTs + 1; ts++) {
                        assertArrayEquals(modelRead(history, key, ts), read(db, write, values, key, ts),
                                "read of key " + key + " at " + ts + " with safe point " + safePoint);
                    }
                }
                assertGarbageGone(db, write, values, safePoint);
            } finally {
                gc.close();
            }
        }
    }

    private static void assertGarbageGone(Db db, ColumnFamily write, ColumnFamily values, long safePoint) {
        TreeMap<String, Integer> versionsAtSafePoint = new TreeMap<>();
        List<byte[]> referencedValues = new ArrayList<>();
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT, write)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte kind = MvccKeys.kind(it.value());
                long commitTs = MvccKeys.timestamp(it.key());
                if (commitTs <= safePoint) {
                    assertTrue(kind == MvccKeys.PUT || kind == MvccKeys.DELETE,
                            "a rollback or lock record at or below the safe point survived");
                    versionsAtSafePoint.merge(Arrays.toString(MvccKeys.encodedUserKey(it.key())), 1, Integer::sum);
                }
                if (kind == MvccKeys.PUT) {
                    referencedValues.add(MvccKeys.withTimestamp(MvccKeys.encodedUserKey(it.key()),
                            MvccKeys.startTimestamp(it.value())));
                }
            }
        }
        versionsAtSafePoint.forEach((key, n) -> assertEquals(1, n, "versions at or below the safe point of " + key));
        List<byte[]> storedValues = new ArrayList<>();
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT, values)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                storedValues.add(it.key());
            }
        }
        assertEquals(referencedValues.stream().map(Arrays::toString).sorted().toList(),
                storedValues.stream().map(Arrays::toString).sorted().toList(), "values without a write record");
    }

    /** The newest PUT or DELETE of {@code key} committed at or before {@code ts}, over the whole history. */
    private static byte[] modelRead(List<Commit> history, int key, long ts) {
        Commit newest = null;
        for (Commit c : history) {
            if (c.key == key && c.commitTs <= ts && (c.kind == MvccKeys.PUT || c.kind == MvccKeys.DELETE)
                    && (newest == null || c.commitTs > newest.commitTs)) {
                newest = c;
            }
        }
        return newest == null || newest.kind == MvccKeys.DELETE ? null : newest.value;
    }

    /** An MVCC read: seek the write family to the key at {@code ts}, skip rollbacks and locks, follow a PUT. */
    private static byte[] read(Db db, ColumnFamily write, ColumnFamily values, int key, long ts) {
        byte[] encoded = MvccKeys.encode(userKey(key));
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT, write)) {
            for (it.seek(MvccKeys.withTimestamp(encoded, ts)); it.valid(); it.next()) {
                if (!Arrays.equals(encoded, MvccKeys.encodedUserKey(it.key()))) {
                    return null;
                }
                byte kind = MvccKeys.kind(it.value());
                if (kind == MvccKeys.DELETE) {
                    return null;
                }
                if (kind == MvccKeys.PUT) {
                    byte[] value = db.get(values, MvccKeys.withTimestamp(encoded, MvccKeys.startTimestamp(it.value())));
                    assertTrue(value != null, "a PUT whose value was collected");
                    return value;
                }
            }
        }
        return null;
    }

    private static byte[] userKey(int key) {
        // Lengths around the 8-byte group size exercise the memcomparable encoding.
        return ("user" + key).repeat(1 + key % 3).getBytes();
    }

    @Provide
    Arbitrary<List<Commit>> histories() {
        Arbitrary<byte[]> kinds = Arbitraries.of(MvccKeys.PUT, MvccKeys.PUT, MvccKeys.PUT, MvccKeys.DELETE,
                MvccKeys.ROLLBACK, MvccKeys.LOCK).map(k -> new byte[] {k});
        Arbitrary<int[]> steps = Combinators.combine(Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(1, 3)).as((key, gap) -> new int[] {key, gap});
        return Combinators.combine(steps.list().ofMinSize(1).ofMaxSize(200), kinds.list().ofSize(200))
                .as((s, k) -> {
                    List<Commit> commits = new ArrayList<>();
                    long ts = 1;
                    for (int i = 0; i < s.size(); i++) {
                        long start = ts;
                        ts += s.get(i)[1];
                        commits.add(new Commit(s.get(i)[0], k.get(i)[0], start, ts, ("v" + ts).getBytes()));
                        ts++;
                    }
                    return commits;
                });
    }

    @Provide
    Arbitrary<Integer> fractions() {
        return Arbitraries.integers().between(0, 110);
    }
}

package io.varve.core.internal.memtable;

import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.memtable.Entries.segment;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Entries.Entry;
import io.varve.core.internal.memtable.Entries.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Model-based check of the memtable against a {@link TreeMap} of internal entries. Keys come from a tiny
 * alphabet including 0x00, 0x7F, 0x80 and 0xFF, so user keys collide often, differ only in signedness-sensitive
 * bytes, and are prefixes of one another.
 */
class MemtableModelProperties {

    private static final long CAPACITY = 256 * 1024;
    private static final int[] ALPHABET = {0x00, 0x01, 0x7F, 0x80, 0xFF};

    /** One write: the sequence advances by {@code sequenceStep} (0 allows same-sequence entries). */
    record Write(byte[] userKey, int sequenceStep, ValueKind kind, byte[] value) {
    }

    /** A probe key: user key plus a sequence and kind code (0xFF is the seek kind). */
    record Probe(byte[] userKey, long sequence, int kindCode) {
        long trailer() {
            return (sequence << 8) | kindCode;
        }
    }

    @Provide
    Arbitrary<List<Write>> writes() {
        Arbitrary<ValueKind> kinds = Arbitraries.of(ValueKind.DELETE, ValueKind.PUT);
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
        return Combinators.combine(userKeys(), Arbitraries.integers().between(0, 2), kinds, values)
                .as(Write::new)
                .list().ofMaxSize(150);
    }

    @Provide
    Arbitrary<List<Probe>> probes() {
        return Combinators.combine(userKeys(), Arbitraries.longs().between(0, 310), Arbitraries.of(0, 1, 0xFF))
                .as(Probe::new)
                .list().ofMinSize(1).ofMaxSize(30);
    }

    private static Arbitrary<byte[]> userKeys() {
        return Arbitraries.of(0, 1, 2, 3, 4).list().ofMaxSize(3).map(indexes -> {
            byte[] key = new byte[indexes.size()];
            for (int i = 0; i < key.length; i++) {
                key[i] = (byte) ALPHABET[indexes.get(i)];
            }
            return key;
        });
    }

    /** Point-index sizes: 1 and 4 slots overflow at once (lookups then search the skiplist), 1024 never. */
    @Provide
    Arbitrary<Integer> indexSlots() {
        return Arbitraries.of(1, 4, 1024);
    }

    @Property(tries = 300)
    void behavesLikeASortedMapOfInternalEntries(@ForAll("writes") List<Write> writes,
            @ForAll("probes") List<Probe> probes, @ForAll("indexSlots") int indexSlots) {
        Memtable memtable = new Memtable(CAPACITY, indexSlots);
        try {
            TreeMap<Key, byte[]> oracle = applyWrites(memtable, writes);
            assertEquals(oracle.size(), memtable.entryCount());
            assertEquals(oracle.isEmpty(), memtable.isEmpty());
            try (InternalIterator it = memtable.iterator()) {
                List<Entry> expected = entries(oracle);
                assertEquals(expected, Entries.forward(it), "forward iteration");
                assertEquals(expected.reversed(), Entries.backward(it), "backward iteration");
                for (Probe probe : probes) {
                    checkSeek(it, oracle, probe);
                    checkSeekForPrev(it, oracle, probe);
                    checkGet(memtable, oracle, probe);
                }
            }
        } finally {
            memtable.release();
        }
    }

    private static TreeMap<Key, byte[]> applyWrites(Memtable memtable, List<Write> writes) {
        TreeMap<Key, byte[]> oracle = new TreeMap<>(Entries.ORDER);
        long sequence = 1;
        for (Write write : writes) {
            sequence += write.sequenceStep();
            Key key = new Key(write.userKey(), InternalKey.trailer(sequence, write.kind()));
            byte[] value = write.kind() != ValueKind.DELETE ? write.value() : new byte[0];
            if (oracle.containsKey(key)) {
                assertThrows(IllegalStateException.class,
                        () -> memtable.add(segment(key.userKey()), key.trailer(), segment(value)));
            } else {
                assertTrue(memtable.add(segment(key.userKey()), key.trailer(), segment(value)));
                oracle.put(key, value);
            }
        }
        return oracle;
    }

    private static List<Entry> entries(TreeMap<Key, byte[]> oracle) {
        List<Entry> out = new ArrayList<>();
        oracle.forEach((k, v) -> out.add(new Entry(k, v)));
        return out;
    }

    private static void checkSeek(InternalIterator it, TreeMap<Key, byte[]> oracle, Probe probe) {
        Key target = new Key(probe.userKey(), probe.trailer());
        it.seek(segment(target.userKey()), target.trailer());
        Map.Entry<Key, byte[]> expected = oracle.ceilingEntry(target);
        assertPositionedAt(expected, it, "seek " + target);
        if (expected != null) {
            it.next();
            assertPositionedAt(oracle.higherEntry(expected.getKey()), it, "next after seek " + target);
        }
    }

    private static void checkSeekForPrev(InternalIterator it, TreeMap<Key, byte[]> oracle, Probe probe) {
        Key target = new Key(probe.userKey(), probe.trailer());
        it.seekForPrev(segment(target.userKey()), target.trailer());
        Map.Entry<Key, byte[]> expected = oracle.floorEntry(target);
        assertPositionedAt(expected, it, "seekForPrev " + target);
        if (expected != null) {
            it.prev();
            assertPositionedAt(oracle.lowerEntry(expected.getKey()), it, "prev after seekForPrev " + target);
        }
    }

    private static void checkGet(Memtable memtable, TreeMap<Key, byte[]> oracle, Probe probe) {
        LookupResult result = new LookupResult();
        boolean decided = memtable.get(segment(probe.userKey()), probe.sequence(), result);
        Key seekKey = new Key(probe.userKey(), InternalKey.seekTrailer(probe.sequence()));
        Map.Entry<Key, byte[]> newest = oracle.ceilingEntry(seekKey);
        String what = "get " + seekKey;
        if (newest == null || !Arrays.equals(newest.getKey().userKey(), probe.userKey())) {
            assertFalse(decided, what);
            assertEquals(LookupResult.Status.NOT_FOUND, result.status(), what);
            return;
        }
        assertTrue(decided, what);
        assertEquals(newest.getKey().trailer(), result.trailer(), what);
        if (InternalKey.kindCode(newest.getKey().trailer()) == ValueKind.DELETE.code()) {
            assertEquals(LookupResult.Status.DELETED, result.status(), what);
        } else {
            boolean merge = InternalKey.kindCode(newest.getKey().trailer()) == ValueKind.MERGE.code();
            assertEquals(merge ? LookupResult.Status.MERGE : LookupResult.Status.FOUND, result.status(), what);
            assertEquals(new Entry(newest.getKey(), newest.getValue()),
                    new Entry(newest.getKey(), Entries.toArray(result.value())), what);
        }
    }

    private static void assertPositionedAt(Map.Entry<Key, byte[]> expected, InternalIterator it, String what) {
        if (expected == null) {
            assertFalse(it.valid(), what + ": expected exhausted iterator");
            return;
        }
        assertTrue(it.valid(), what + ": expected " + expected.getKey());
        assertEquals(new Entry(expected.getKey(), expected.getValue()), Entries.current(it), what);
    }
}

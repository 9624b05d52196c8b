package io.varve.core.internal.memtable;

import io.varve.core.internal.keys.InternalIterator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/** Test helpers: an on-heap internal entry with the engine's ordering, and iterator collection. */
final class Entries {

    /** Internal-key order: user key unsigned ascending, then trailer descending. */
    static final Comparator<Key> ORDER = (a, b) -> {
        int c = Arrays.compareUnsigned(a.userKey(), b.userKey());
        return c != 0 ? c : Long.compareUnsigned(b.trailer(), a.trailer());
    };

    record Key(byte[] userKey, long trailer) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(userKey, k.userKey) && trailer == k.trailer;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(userKey) * 31 + Long.hashCode(trailer);
        }

        @Override
        public String toString() {
            return HexFormat.of().formatHex(userKey) + "#" + Long.toHexString(trailer);
        }
    }

    record Entry(Key key, byte[] value) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && key.equals(e.key) && Arrays.equals(value, e.value);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return key + "=" + HexFormat.of().formatHex(value);
        }
    }

    /** More entries than any test inserts. */
    static final int ITERATION_LIMIT = 1_000_000;

    private Entries() {
    }

    static MemorySegment segment(byte[] bytes) {
        return MemorySegment.ofArray(bytes);
    }

    static byte[] bytes(int... unsignedBytes) {
        byte[] out = new byte[unsignedBytes.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) unsignedBytes[i];
        }
        return out;
    }

    static byte[] toArray(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The entry under a valid iterator, copied on-heap. */
    static Entry current(InternalIterator it) {
        return new Entry(new Key(toArray(it.userKey()), it.trailer()), toArray(it.value()));
    }

    static List<Entry> forward(InternalIterator it) {
        List<Entry> out = new ArrayList<>();
        for (it.seekToFirst(); it.valid(); it.next()) {
            add(out, current(it));
        }
        return out;
    }

    static List<Entry> backward(InternalIterator it) {
        List<Entry> out = new ArrayList<>();
        for (it.seekToLast(); it.valid(); it.prev()) {
            add(out, current(it));
        }
        return out;
    }

    /** Turns a cycle in the list (an iterator that never ends) into a failure instead of a hang. */
    private static void add(List<Entry> out, Entry entry) {
        if (out.size() >= ITERATION_LIMIT) {
            throw new AssertionError("iterator did not end after " + ITERATION_LIMIT + " entries");
        }
        out.add(entry);
    }
}

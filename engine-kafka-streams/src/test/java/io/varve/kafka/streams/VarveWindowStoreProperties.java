package io.varve.kafka.streams;

import io.varve.kafka.streams.store.StoreOptions;
import io.varve.kafka.streams.store.VarveWindowStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.WindowKeySchema;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random sequences of window store operations against a model of Kafka's segmented window store: a map of
 * (key, window start) to value, stream time as the largest start seen, whole segments dropped once they fall
 * behind the retention period, reads hiding windows older than it. Results come in segment order, then in the
 * store key order Kafka's window key layout defines. Close and reopen keep the data and committed offsets and
 * forget stream time, as Kafka's RocksDB window store does; restoration moves stream time like puts. A store
 * for emitting on window close still shows windows exactly the retention period behind stream time, as
 * Kafka's time-ordered window store does.
 */
class VarveWindowStoreProperties {

    private static final long RETENTION = 100;
    private static final long SEGMENT = 40;
    private static final long WINDOW = 10;
    private static final TopicPartition CHANGELOG = new TopicPartition("app-window-changelog", 0);
    private static final StoreOptions OPTIONS = VarveStoreConfig::options;

    /** The restore callback the store registered at its last init. */
    private BatchingStateRestoreCallback restoreCallback;

    enum Kind { PUT, DELETE, FETCH_ONE, FETCH, BACKWARD_FETCH, FETCH_RANGE, FETCH_ALL, ALL, BACKWARD_ALL, COMMIT,
        REOPEN, RESTORE }

    record Step(Kind kind, byte[] key, byte[] otherKey, long time, long otherTime, byte[] value) {
        @Override
        public String toString() {
            return kind + "(" + VarveKeyValueStoreProperties.hex(key) + ", " + VarveKeyValueStoreProperties.hex(otherKey)
                    + ", " + time + ", " + otherTime + ")";
        }
    }

    /** The model: store keys in Kafka's window layout (sequence 0), ordered by segment then unsigned bytes. */
    static final class Model {
        final TreeMap<byte[], byte[]> entries = new TreeMap<>(Comparator
                .comparingLong((byte[] k) -> segment(start(k))).thenComparing(Arrays::compareUnsigned));
        long streamTime = -1;
        /** How far behind stream time the oldest visible window starts: the retention, or one less. */
        final long oldestVisibleAge;

        Model(boolean emitsOnClose) {
            oldestVisibleAge = emitsOnClose ? RETENTION : RETENTION - 1;
        }

        static long segment(long time) {
            return time / SEGMENT;
        }

        static long start(byte[] storeKey) {
            return java.nio.ByteBuffer.wrap(storeKey, storeKey.length - 12, 8).getLong();
        }

        static byte[] key(byte[] storeKey) {
            return Arrays.copyOf(storeKey, storeKey.length - 12);
        }

        void put(byte[] key, long start, byte[] value) {
            streamTime = Math.max(streamTime, start);
            long minLive = segment(streamTime - RETENTION);
            entries.keySet().removeIf(k -> segment(start(k)) < minLive);
            if (segment(start) < minLive) {
                return;
            }
            byte[] storeKey = WindowKeySchema.toStoreKeyBinary(Bytes.wrap(key), start, 0).get();
            if (value == null) {
                entries.remove(storeKey);
            } else {
                entries.put(storeKey, value);
            }
        }

        long actualFrom(long from) {
            return Math.max(from, streamTime - oldestVisibleAge);
        }

        List<String> select(byte[] keyFrom, byte[] keyTo, long from, long to, boolean forward, boolean withKey) {
            long actual = actualFrom(from);
            List<String> result = new ArrayList<>();
            if (to < actual) {
                return result;
            }
            for (Map.Entry<byte[], byte[]> e : (forward ? entries : entries.descendingMap()).entrySet()) {
                byte[] key = key(e.getKey());
                long start = start(e.getKey());
                if (start < actual || start > to
                        || keyFrom != null && Arrays.compareUnsigned(key, keyFrom) < 0
                        || keyTo != null && Arrays.compareUnsigned(key, keyTo) > 0) {
                    continue;
                }
                result.add((withKey ? VarveKeyValueStoreProperties.hex(key) + "@" : "") + start + "="
                        + VarveKeyValueStoreProperties.hex(e.getValue()));
            }
            return result;
        }
    }

    @Property(tries = 30)
    void behavesLikeKafkasSegmentedWindowStore(@ForAll("steps") List<Step> steps, @ForAll boolean emitsOnClose) {
        Path dir = TestDirs.create("varve-window-model");
        Model model = new Model(emitsOnClose);
        Long committed = null;
        long nextOffset = 0;
        VarveWindowStore store = open(dir, emitsOnClose);
        try {
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                String where = "step " + i + " " + s;
                Bytes key = Bytes.wrap(s.key());
                switch (s.kind()) {
                    case PUT -> {
                        store.put(key, s.value(), s.time());
                        model.put(s.key(), s.time(), s.value());
                    }
                    case DELETE -> {
                        store.put(key, null, s.time());
                        model.put(s.key(), s.time(), null);
                    }
                    case FETCH_ONE -> {
                        byte[] storeKey = WindowKeySchema.toStoreKeyBinary(key, s.time(), 0).get();
                        byte[] expected = s.time() < model.actualFrom(s.time()) ? null : model.entries.get(storeKey);
                        assertArrayEquals(expected, store.fetch(key, s.time()), where);
                    }
                    case FETCH, BACKWARD_FETCH -> {
                        boolean forward = s.kind() == Kind.FETCH;
                        try (WindowStoreIterator<byte[]> it = forward ? store.fetch(key, s.time(), s.otherTime())
                                : store.backwardFetch(key, s.time(), s.otherTime())) {
                            List<String> actual = new ArrayList<>();
                            it.forEachRemaining(kv -> actual.add(kv.key + "=" + VarveKeyValueStoreProperties.hex(kv.value)));
                            assertEquals(model.select(s.key(), s.key(), s.time(), s.otherTime(), forward, false),
                                    actual, where);
                        }
                    }
                    case FETCH_RANGE -> {
                        if (s.otherKey() != null && Arrays.compareUnsigned(s.key(), s.otherKey()) > 0) {
                            continue;
                        }
                        Bytes to = s.otherKey() == null ? null : Bytes.wrap(s.otherKey());
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.fetch(key, to, s.time(), s.otherTime())) {
                            assertEquals(model.select(s.key(), s.otherKey(), s.time(), s.otherTime(), true, true),
                                    windowed(it), where);
                        }
                    }
                    case FETCH_ALL -> {
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.fetchAll(s.time(), s.otherTime())) {
                            assertEquals(model.select(null, null, s.time(), s.otherTime(), true, true), windowed(it), where);
                        }
                    }
                    case ALL, BACKWARD_ALL -> {
                        boolean forward = s.kind() == Kind.ALL;
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = forward ? store.all() : store.backwardAll()) {
                            assertEquals(model.select(null, null, 0, Long.MAX_VALUE, forward, true), windowed(it), where);
                        }
                    }
                    case COMMIT -> {
                        committed = nextOffset++;
                        store.commit(Map.of(CHANGELOG, committed));
                    }
                    case REOPEN -> {
                        store.close();
                        store = open(dir, emitsOnClose);
                        model.streamTime = -1;
                        assertEquals(committed, store.committedOffset(CHANGELOG), where);
                    }
                    case RESTORE -> {
                        byte[] storeKey = WindowKeySchema.toStoreKeyBinary(key, s.time(), 0).get();
                        restoreCallback.restoreAll(List.of(KeyValue.pair(storeKey, s.value())));
                        model.put(s.key(), s.time(), s.value());
                    }
                }
            }
        } finally {
            store.close();
            TestDirs.delete(dir);
        }
    }

    /** The retention edge itself, which random steps reach only now and then. */
    @Example
    void onlyAStoreForEmittingOnCloseShowsTheWindowExactlyTheRetentionPeriodBehindStreamTime() {
        for (boolean emitsOnClose : new boolean[] {false, true}) {
            Path dir = TestDirs.create("varve-window-edge");
            VarveWindowStore store = open(dir, emitsOnClose);
            try {
                Bytes key = Bytes.wrap(new byte[] {0x61});
                store.put(key, new byte[] {1}, 0);
                store.put(key, new byte[] {2}, RETENTION);
                List<Long> starts = new ArrayList<>();
                try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.fetchAll(0, RETENTION)) {
                    it.forEachRemaining(kv -> starts.add(kv.key.window().start()));
                }
                assertEquals(emitsOnClose ? List.of(0L, RETENTION) : List.of(RETENTION), starts);
                assertArrayEquals(emitsOnClose ? new byte[] {1} : null, store.fetch(key, 0));
            } finally {
                store.close();
                TestDirs.delete(dir);
            }
        }
    }

    private VarveWindowStore open(Path dir, boolean emitsOnClose) {
        VarveWindowStore store = new VarveWindowStore("window-model", RETENTION, SEGMENT, WINDOW, false,
                emitsOnClose, OPTIONS);
        TestStoreContext context = new TestStoreContext(dir);
        store.init(context, store);
        restoreCallback = (BatchingStateRestoreCallback) Objects.requireNonNull(context.restoreCallback);
        return store;
    }

    private static List<String> windowed(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> actual = new ArrayList<>();
        it.forEachRemaining(kv -> actual.add(VarveKeyValueStoreProperties.hex(kv.key.key().get()) + "@"
                + kv.key.window().start() + "=" + VarveKeyValueStoreProperties.hex(kv.value)));
        return actual;
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<byte[]> keys = Arbitraries.of(new byte[] {0x00}, new byte[] {0x61}, new byte[] {0x61, 0x61},
                new byte[] {(byte) 0x80}, new byte[] {(byte) 0xff, 0x00});
        // Multiples of 20 up to 400 (10 segments): retention and segment edges are hit often.
        Arbitrary<Long> times = Arbitraries.longs().between(0, 20).map(t -> t * 20);
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(3);
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Kind.class), keys, keys.injectNull(0.2), times,
                times, values).as(Step::new);
        return step.list().ofMaxSize(50);
    }
}

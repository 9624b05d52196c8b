package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveSessionStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.SessionKeySchema;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random sequences of session store operations against a model of Kafka's segmented session store: sessions
 * (key, start, end) segmented by end, stream time the largest end seen, whole segments dropped once behind the
 * retention period, reads hiding sessions that ended before it. {@code findSessions(key, earliestEnd,
 * latestStart)} returns the sessions ending at or after {@code earliestEnd} and starting at or before
 * {@code latestStart}, in segment order then in Kafka's session key order; {@code findSessions(earliestEnd,
 * latestEnd)} every key's sessions ending in that range, whether or not retention hides them from other reads,
 * in the same order. Close and reopen keep data and offsets and forget stream time; restoration moves stream
 * time like puts.
 */
class VarveSessionStoreProperties {

    private static final long RETENTION = 100;
    private static final long SEGMENT = 40;
    private static final TopicPartition CHANGELOG = new TopicPartition("app-session-changelog", 0);

    enum Kind { PUT, PUT_NULL, REMOVE, FETCH_SESSION, FIND, BACKWARD_FIND, FIND_RANGE, FIND_BY_END, FETCH_KEY, COMMIT,
        REOPEN, RESTORE }

    record Step(Kind kind, byte[] key, byte[] otherKey, long start, long length, long from, long to, byte[] value) {
        long end() {
            return start + length;
        }

        @Override
        public String toString() {
            return kind + "(" + VarveKeyValueStoreProperties.hex(key) + ", " + VarveKeyValueStoreProperties.hex(otherKey)
                    + ", [" + start + "," + end() + "], " + from + ", " + to + ")";
        }
    }

    static final class Model {
        final TreeMap<byte[], byte[]> sessions = new TreeMap<>(Comparator
                .comparingLong((byte[] k) -> end(k) / SEGMENT).thenComparing(Arrays::compareUnsigned));
        long streamTime = -1;

        static long end(byte[] sessionKey) {
            return ByteBuffer.wrap(sessionKey, sessionKey.length - 16, 8).getLong();
        }

        static long start(byte[] sessionKey) {
            return ByteBuffer.wrap(sessionKey, sessionKey.length - 8, 8).getLong();
        }

        static byte[] key(byte[] sessionKey) {
            return Arrays.copyOf(sessionKey, sessionKey.length - 16);
        }

        void put(byte[] sessionKey, byte[] value) {
            long end = end(sessionKey);
            streamTime = Math.max(streamTime, end);
            long minLive = (streamTime - RETENTION) / SEGMENT;
            sessions.keySet().removeIf(k -> end(k) / SEGMENT < minLive);
            if (end / SEGMENT < minLive) {
                return;
            }
            if (value == null) {
                sessions.remove(sessionKey);
            } else {
                sessions.put(sessionKey, value);
            }
        }

        void remove(byte[] sessionKey) {
            sessions.remove(sessionKey);
        }

        byte[] get(byte[] sessionKey) {
            return end(sessionKey) < streamTime - RETENTION + 1 ? null : sessions.get(sessionKey);
        }

        List<String> find(byte[] keyFrom, byte[] keyTo, long earliestEnd, long latestStart, boolean forward) {
            long actual = Math.max(earliestEnd, streamTime - RETENTION + 1);
            List<String> result = new ArrayList<>();
            for (Map.Entry<byte[], byte[]> e : (forward ? sessions : sessions.descendingMap()).entrySet()) {
                byte[] key = key(e.getKey());
                if (end(e.getKey()) < actual || start(e.getKey()) > latestStart
                        || keyFrom != null && Arrays.compareUnsigned(key, keyFrom) < 0
                        || keyTo != null && Arrays.compareUnsigned(key, keyTo) > 0) {
                    continue;
                }
                result.add(describe(key, start(e.getKey()), end(e.getKey()), e.getValue()));
            }
            return result;
        }

        /** Every key's sessions ending in {@code [earliestEnd, latestEnd]} that no dropped segment took along. */
        List<String> findByEnd(long earliestEnd, long latestEnd) {
            List<String> result = new ArrayList<>();
            for (Map.Entry<byte[], byte[]> e : sessions.entrySet()) {
                long end = end(e.getKey());
                if (end >= earliestEnd && end <= latestEnd) {
                    result.add(describe(key(e.getKey()), start(e.getKey()), end, e.getValue()));
                }
            }
            return result;
        }
    }

    static String describe(byte[] key, long start, long end, byte[] value) {
        return VarveKeyValueStoreProperties.hex(key) + "[" + start + "," + end + "]=" + VarveKeyValueStoreProperties.hex(value);
    }

    @Property(tries = 30)
    void behavesLikeKafkasSegmentedSessionStore(@ForAll("steps") List<Step> steps) {
        Path dir = TestDirs.create("varve-session-model");
        Model model = new Model();
        Long committed = null;
        long nextOffset = 0;
        TestStoreContext[] context = new TestStoreContext[1];
        VarveSessionStore store = open(dir, context);
        try {
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                String where = "step " + i + " " + s;
                Bytes key = Bytes.wrap(s.key());
                Windowed<Bytes> session = new Windowed<>(key, new SessionWindow(s.start(), s.end()));
                byte[] sessionKey = SessionKeySchema.toBinary(session).get();
                switch (s.kind()) {
                    case PUT -> {
                        store.put(session, s.value());
                        model.put(sessionKey, s.value());
                    }
                    case PUT_NULL -> {
                        store.put(session, null);
                        model.put(sessionKey, null);
                    }
                    case REMOVE -> {
                        store.remove(session);
                        model.remove(sessionKey);
                    }
                    case FETCH_SESSION -> assertArrayEquals(model.get(sessionKey),
                            store.fetchSession(key, s.start(), s.end()), where);
                    case FIND, BACKWARD_FIND -> {
                        boolean forward = s.kind() == Kind.FIND;
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = forward
                                ? store.findSessions(key, s.from(), s.to())
                                : store.backwardFindSessions(key, s.from(), s.to())) {
                            assertEquals(model.find(s.key(), s.key(), s.from(), s.to(), forward), list(it), where);
                        }
                    }
                    case FIND_RANGE -> {
                        if (s.otherKey() != null && Arrays.compareUnsigned(s.key(), s.otherKey()) > 0) {
                            continue;
                        }
                        Bytes to = s.otherKey() == null ? null : Bytes.wrap(s.otherKey());
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.findSessions(key, to, s.from(), s.to())) {
                            assertEquals(model.find(s.key(), s.otherKey(), s.from(), s.to(), true), list(it), where);
                        }
                    }
                    case FIND_BY_END -> {
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.findSessions(s.from(), s.to())) {
                            assertEquals(model.findByEnd(s.from(), s.to()), list(it), where);
                        }
                    }
                    case FETCH_KEY -> {
                        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = store.fetch(key)) {
                            assertEquals(model.find(s.key(), s.key(), 0, Long.MAX_VALUE, true), list(it), where);
                        }
                    }
                    case COMMIT -> {
                        committed = nextOffset++;
                        store.commit(Map.of(CHANGELOG, committed));
                    }
                    case REOPEN -> {
                        store.close();
                        store = open(dir, context);
                        model.streamTime = -1;
                        assertEquals(committed, store.committedOffset(CHANGELOG), where);
                    }
                    case RESTORE -> {
                        ((BatchingStateRestoreCallback) context[0].restoreCallback)
                                .restoreAll(List.of(KeyValue.pair(sessionKey, s.value())));
                        model.put(sessionKey, s.value());
                    }
                }
            }
        } finally {
            store.close();
            TestDirs.delete(dir);
        }
    }

    private static VarveSessionStore open(Path dir, TestStoreContext[] context) {
        VarveSessionStore store = new VarveSessionStore("session-model", RETENTION, SEGMENT, VarveStoreConfig::options);
        context[0] = new TestStoreContext(dir);
        store.init(context[0], store);
        return store;
    }

    private static List<String> list(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> actual = new ArrayList<>();
        it.forEachRemaining(kv -> actual.add(describe(kv.key.key().get(), kv.key.window().start(),
                kv.key.window().end(), kv.value)));
        return actual;
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<byte[]> keys = Arbitraries.of(new byte[] {0x00}, new byte[] {0x61}, new byte[] {0x61, 0x61},
                new byte[] {(byte) 0x80}, new byte[] {(byte) 0xff, 0x00});
        // Multiples of 10 up to 400: retention and segment edges are hit often.
        Arbitrary<Long> times = Arbitraries.longs().between(0, 40).map(t -> t * 10);
        Arbitrary<Long> lengths = Arbitraries.longs().between(0, 6).map(t -> t * 10);
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(3);
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Kind.class), keys, keys.injectNull(0.2), times,
                lengths, times, times, values).as(Step::new);
        return step.list().ofMaxSize(50);
    }
}

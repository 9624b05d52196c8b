package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveVersionedStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import static io.varve.kafka.streams.VarveKeyValueStoreProperties.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random sequences of versioned store operations against a model that knows nothing of segments: per key, a
 * sorted map from timestamp to value or tombstone, and a stream time. A point holds from its timestamp to the
 * next point's; a put returns that next timestamp; a write older than a history retention before stream time is
 * refused, and a read as of such a time sees only the latest value. Puts come out of order, repeat timestamps,
 * write tombstones and empty values; keys include one that is a prefix of another. Close and reopen keep data,
 * committed offsets and stream time; restoration applies records as puts.
 */
class VarveVersionedStoreProperties {

    private static final TopicPartition CHANGELOG = new TopicPartition("app-versioned-changelog", 0);
    /** Stands for a tombstone in the model's maps, where null means no point. */
    private static final byte[] TOMBSTONE = new byte[0];
    private static final List<byte[]> KEYS = List.of(new byte[0], new byte[] {0x61}, new byte[] {0x61, 0x61},
            new byte[] {(byte) 0xff});

    private RecordBatchingStateRestoreCallback restoreCallback;

    enum Kind { PUT, PUT_TOMBSTONE, DELETE, GET, GET_AS_OF, VERSIONS, VERSIONS_ASCENDING, COMMIT, REOPEN, RESTORE }

    /**
     * One operation. Times are relative to a clock that each step moves forward by {@code advance}: the step's
     * time is {@code back} before the clock, and its other time (the end of a range, a second restored record)
     * {@code span} after its time. So most times fall near the points already written, before, on and after
     * them, while stream time keeps moving past retentions and segments.
     */
    record Step(Kind kind, byte[] key, long advance, long back, long span, byte[] value) {
        @Override
        public String toString() {
            return kind + "(" + hex(key) + ", +" + advance + ", -" + back + ", " + span + ", " + hex(value) + ")";
        }
    }

    /** The oracle. */
    static final class Model {
        final long retention;
        final Map<String, TreeMap<Long, byte[]>> points = new HashMap<>();
        long streamTime = -1;

        Model(long retention) {
            this.retention = retention;
        }

        TreeMap<Long, byte[]> of(byte[] key) {
            return points.computeIfAbsent(hex(key), k -> new TreeMap<>());
        }

        boolean expired(long time) {
            return time < streamTime - retention;
        }

        long put(byte[] key, byte[] value, long time) {
            if (expired(time)) {
                return VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT;
            }
            streamTime = Math.max(streamTime, time);
            TreeMap<Long, byte[]> history = of(key);
            history.put(time, value == null ? TOMBSTONE : value);
            Long next = history.higherKey(time);
            return next == null ? VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED : next;
        }

        String latest(byte[] key) {
            Map.Entry<Long, byte[]> last = of(key).lastEntry();
            return last == null || last.getValue() == TOMBSTONE ? "null" : render(last.getValue(), last.getKey(), null);
        }

        String asOf(byte[] key, long asOf) {
            TreeMap<Long, byte[]> history = of(key);
            if (expired(asOf)) {
                Map.Entry<Long, byte[]> last = history.lastEntry();
                return last != null && last.getValue() != TOMBSTONE && last.getKey() <= asOf
                        ? render(last.getValue(), last.getKey(), null) : "null";
            }
            Map.Entry<Long, byte[]> floor = history.floorEntry(asOf);
            if (floor == null || floor.getValue() == TOMBSTONE) {
                return "null";
            }
            return render(floor.getValue(), floor.getKey(), history.higherKey(floor.getKey()));
        }

        List<String> versions(byte[] key, long from, long to, boolean ascending) {
            TreeMap<Long, byte[]> history = of(key);
            List<String> found = new ArrayList<>();
            long visibleFrom = expired(to) ? Long.MAX_VALUE : Math.max(from, streamTime - retention);
            for (Map.Entry<Long, byte[]> point : history.entrySet()) {
                Long validTo = history.higherKey(point.getKey());
                boolean latest = validTo == null;
                boolean holds = point.getKey() <= to && from <= to
                        && (latest || visibleFrom <= to && validTo > visibleFrom);
                if (point.getValue() != TOMBSTONE && holds) {
                    found.add(render(point.getValue(), point.getKey(), validTo));
                }
            }
            return ascending ? found : found.reversed();
        }

        static String render(byte[] value, long validFrom, Long validTo) {
            return hex(value) + "@" + validFrom + ".." + (validTo == null ? "" : validTo);
        }
    }

    static String render(VersionedRecord<byte[]> record) {
        return record == null ? "null"
                : Model.render(record.value(), record.timestamp(), record.validTo().orElse(null));
    }

    @Property(tries = 150)
    void behavesLikeAMapOfSortedVersions(@ForAll("steps") List<Step> steps,
                                         @ForAll("retentions") long retention,
                                         @ForAll("segmentIntervals") long segmentInterval) {
        Path dir = TestDirs.create("varve-versioned-model");
        Model model = new Model(retention);
        Long committed = null;
        long nextOffset = 0;
        VarveVersionedStore store = open(dir, retention, segmentInterval);
        long clock = 0;
        // Consecutive RESTORE steps make one restore batch, handed over before the next other step.
        List<ConsumerRecord<byte[], byte[]>> restoring = new ArrayList<>();
        try {
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                if (step.kind() != Kind.RESTORE && !restoring.isEmpty()) {
                    restoreCallback.restoreBatch(restoring);
                    restoring = new ArrayList<>();
                }
                clock += step.advance();
                long time = Math.max(0, clock - step.back());
                Timed s = new Timed(step.kind(), step.key(), time, time + step.span(), step.value());
                String where = "step " + i + " " + s;
                Bytes key = Bytes.wrap(s.key());
                switch (s.kind()) {
                    case PUT, PUT_TOMBSTONE -> {
                        byte[] value = s.kind() == Kind.PUT ? s.value() : null;
                        long expected = model.put(s.key(), value, s.time());
                        assertEquals(expected, store.put(key, value, s.time()), where);
                    }
                    case DELETE -> {
                        String expected = model.expired(s.time()) ? "null" : model.asOf(s.key(), s.time());
                        model.put(s.key(), null, s.time());
                        assertEquals(expected, render(store.delete(key, s.time())), where);
                    }
                    case GET -> assertEquals(model.latest(s.key()), render(store.get(key)), where);
                    case GET_AS_OF -> assertEquals(model.asOf(s.key(), s.time()), render(store.get(key, s.time())),
                            where);
                    case VERSIONS, VERSIONS_ASCENDING -> {
                        boolean ascending = s.kind() == Kind.VERSIONS_ASCENDING;
                        List<String> actual = new ArrayList<>();
                        try (VersionedRecordIterator<byte[]> it = store.get(key, s.time(), s.otherTime(),
                                ascending ? ResultOrder.ASCENDING : ResultOrder.ANY)) {
                            it.forEachRemaining(r -> actual.add(render(r)));
                        }
                        assertEquals(model.versions(s.key(), s.time(), s.otherTime(), ascending), actual, where);
                    }
                    case COMMIT -> {
                        committed = nextOffset++;
                        store.commit(Map.of(CHANGELOG, committed));
                    }
                    case REOPEN -> {
                        store.close();
                        store = open(dir, retention, segmentInterval);
                        assertEquals(committed, store.committedOffset(CHANGELOG), where);
                        assertEquals(model.streamTime, store.observedStreamTime(), where);
                    }
                    case RESTORE -> {
                        restoring.add(changelogRecord(s.key(), s.value(), s.time()));
                        restoring.add(changelogRecord(s.key(), null, s.otherTime()));
                        model.put(s.key(), s.value(), s.time());
                        model.put(s.key(), null, s.otherTime());
                    }
                }
            }
            if (!restoring.isEmpty()) {
                restoreCallback.restoreBatch(restoring);
                for (byte[] key : KEYS) {
                    List<String> actual = new ArrayList<>();
                    try (VersionedRecordIterator<byte[]> it = store.get(Bytes.wrap(key), 0, clock,
                            ResultOrder.ASCENDING)) {
                        it.forEachRemaining(r -> actual.add(render(r)));
                    }
                    assertEquals(model.versions(key, 0, clock, true), actual, "after the last restore batch");
                }
            }
        } finally {
            store.close();
            TestDirs.delete(dir);
        }
    }

    /** A step with its times made absolute. */
    record Timed(Kind kind, byte[] key, long time, long otherTime, byte[] value) {
        @Override
        public String toString() {
            return kind + "(" + hex(key) + ", " + time + ", " + otherTime + ", " + hex(value) + ")";
        }
    }

    private static ConsumerRecord<byte[], byte[]> changelogRecord(byte[] key, byte[] value, long timestamp) {
        return new ConsumerRecord<>(CHANGELOG.topic(), CHANGELOG.partition(), 0L, timestamp,
                TimestampType.CREATE_TIME, key.length, value == null ? 0 : value.length, key, value,
                new RecordHeaders(), Optional.empty());
    }

    private VarveVersionedStore open(Path dir, long retention, long segmentInterval) {
        VarveVersionedStore store = new VarveVersionedStore("versioned-model", retention, segmentInterval,
                VarveStoreConfig::options);
        TestStoreContext context = new TestStoreContext(dir);
        store.init(context, store);
        restoreCallback = (RecordBatchingStateRestoreCallback) Objects.requireNonNull(context.restoreCallback);
        return store;
    }

    @Provide
    Arbitrary<Long> retentions() {
        return Arbitraries.of(0L, 20L, 40L, 1_000L);
    }

    @Provide
    Arbitrary<Long> segmentIntervals() {
        return Arbitraries.of(7L, 40L);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<byte[]> keys = Arbitraries.of(KEYS);
        Arbitrary<Long> advances = Arbitraries.longs().between(0, 12);
        Arbitrary<Long> backs = Arbitraries.longs().between(0, 60);
        Arbitrary<Long> spans = Arbitraries.longs().between(-5, 60);
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(2);
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Kind.class), keys, advances, backs, spans, values)
                .as(Step::new);
        return step.list().ofMaxSize(80);
    }
}

package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveKeyValueStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random sequences of every key-value store operation, checked step by step against a {@code TreeMap} in
 * unsigned byte order, with the store closed and reopened on the same directory in between (data and committed
 * offsets must survive) and changelog batches restored through the restore callback. Keys come from a tiny
 * alphabet holding 0x00, 0x7f, 0x80 and 0xff so that signedness, empty keys and prefix ends are exercised.
 */
class VarveKeyValueStoreProperties {

    private static final TopicPartition CHANGELOG = new TopicPartition("app-store-changelog", 0);

    enum Kind { PUT, PUT_NULL, PUT_IF_ABSENT, PUT_ALL, DELETE, GET, RANGE, REVERSE_RANGE, PREFIX_SCAN, ALL,
        REVERSE_ALL, COUNT, COMMIT, REOPEN, RESTORE }

    record Step(Kind kind, byte[] key, byte[] other, byte[] value) {
        @Override
        public String toString() {
            return kind + "(" + hex(key) + ", " + hex(other) + ", " + hex(value) + ")";
        }
    }

    @Property(tries = 40)
    void behavesLikeASortedMap(@ForAll("steps") List<Step> steps) {
        Path dir = TestDirs.create("varve-kv-model");
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        Long committed = null;
        long nextOffset = 0;
        VarveKeyValueStore store = open(dir);
        try {
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                String where = "step " + i + " " + step;
                switch (step.kind()) {
                    case PUT -> {
                        store.put(Bytes.wrap(step.key()), step.value());
                        model.put(step.key(), step.value());
                    }
                    case PUT_NULL -> {
                        store.put(Bytes.wrap(step.key()), null);
                        model.remove(step.key());
                    }
                    case PUT_IF_ABSENT -> {
                        byte[] previous = store.putIfAbsent(Bytes.wrap(step.key()), step.value());
                        assertArrayEquals(model.get(step.key()), previous, where);
                        model.putIfAbsent(step.key(), step.value());
                    }
                    case PUT_ALL -> {
                        store.putAll(List.of(KeyValue.pair(Bytes.wrap(step.key()), step.value()),
                                KeyValue.pair(Bytes.wrap(step.other()), null)));
                        model.put(step.key(), step.value());
                        model.remove(step.other());
                    }
                    case DELETE -> assertArrayEquals(model.remove(step.key()),
                            store.delete(Bytes.wrap(step.key())), where);
                    case GET -> assertArrayEquals(model.get(step.key()), store.get(Bytes.wrap(step.key())), where);
                    case RANGE, REVERSE_RANGE -> {
                        boolean forward = step.kind() == Kind.RANGE;
                        Bytes from = step.key() == null ? null : Bytes.wrap(step.key());
                        Bytes to = step.other() == null ? null : Bytes.wrap(step.other());
                        try (KeyValueIterator<Bytes, byte[]> it = forward ? store.range(from, to)
                                : store.reverseRange(from, to)) {
                            assertEntries(expectedRange(model, step.key(), step.other(), forward), it, where);
                        }
                    }
                    case PREFIX_SCAN -> {
                        List<Map.Entry<byte[], byte[]>> expected = new ArrayList<>();
                        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                            if (startsWith(e.getKey(), step.key())) {
                                expected.add(e);
                            }
                        }
                        try (KeyValueIterator<Bytes, byte[]> it =
                                     store.prefixScan(step.key(), Serdes.ByteArray().serializer())) {
                            assertEntries(expected, it, where);
                        }
                    }
                    case ALL -> {
                        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
                            assertEntries(new ArrayList<>(model.entrySet()), it, where);
                        }
                    }
                    case REVERSE_ALL -> {
                        try (KeyValueIterator<Bytes, byte[]> it = store.reverseAll()) {
                            assertEntries(new ArrayList<>(model.descendingMap().entrySet()), it, where);
                        }
                    }
                    case COUNT -> assertEquals(model.size(), store.approximateNumEntries(), where);
                    case COMMIT -> {
                        committed = nextOffset++;
                        store.commit(Map.of(CHANGELOG, committed));
                    }
                    case REOPEN -> {
                        store.close();
                        store = open(dir);
                        assertEquals(committed, store.committedOffset(CHANGELOG), where);
                    }
                    case RESTORE -> {
                        ((BatchingStateRestoreCallback) store).restoreAll(List.of(
                                KeyValue.pair(step.key(), step.value()), KeyValue.pair(step.other(), null)));
                        model.put(step.key(), step.value());
                        model.remove(step.other());
                    }
                }
            }
        } finally {
            store.close();
            TestDirs.delete(dir);
        }
    }

    private static VarveKeyValueStore open(Path dir) {
        VarveKeyValueStore store = (VarveKeyValueStore) VarveStores.keyValueStore("model").get();
        store.init(new TestStoreContext(dir), store);
        return store;
    }

    private static List<Map.Entry<byte[], byte[]>> expectedRange(NavigableMap<byte[], byte[]> model, byte[] from,
                                                                  byte[] to, boolean forward) {
        if (from != null && to != null && Arrays.compareUnsigned(from, to) > 0) {
            return List.of();
        }
        NavigableMap<byte[], byte[]> view = model;
        if (from != null) {
            view = view.tailMap(from, true);
        }
        if (to != null) {
            view = view.headMap(to, true);
        }
        return new ArrayList<>((forward ? view : view.descendingMap()).entrySet());
    }

    private static void assertEntries(List<Map.Entry<byte[], byte[]>> expected, KeyValueIterator<Bytes, byte[]> it,
                                      String where) {
        List<String> actual = new ArrayList<>();
        while (it.hasNext()) {
            KeyValue<Bytes, byte[]> kv = it.next();
            actual.add(hex(kv.key.get()) + "=" + hex(kv.value));
        }
        List<String> wanted = expected.stream().map(e -> hex(e.getKey()) + "=" + hex(e.getValue())).toList();
        assertEquals(wanted, actual, where);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    static String hex(byte[] bytes) {
        if (bytes == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("[");
        for (byte b : bytes) {
            sb.append(String.format("%02x", b));
        }
        return sb.append(']').toString();
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<byte[]> keys = Arbitraries.of((byte) 0x00, (byte) 0x01, (byte) 0x7f, (byte) 0x80, (byte) 0xff)
                .list().ofMinSize(0).ofMaxSize(3)
                .map(list -> {
                    byte[] key = new byte[list.size()];
                    for (int i = 0; i < key.length; i++) {
                        key[i] = list.get(i);
                    }
                    return key;
                });
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMaxSize(4);
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Kind.class), keys.injectNull(0.15),
                        keys.injectNull(0.15), values)
                .as((kind, key, other, value) -> {
                    boolean nullableEnds = kind == Kind.RANGE || kind == Kind.REVERSE_RANGE;
                    byte[] k = key == null && !nullableEnds ? new byte[0] : key;
                    byte[] o = other == null && !nullableEnds ? new byte[] {1} : other;
                    return new Step(kind, k, o, value);
                });
        return step.list().ofMaxSize(40);
    }
}

package io.varve.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reads the model-based properties check a database's answers with, against the model's sorted map. */
final class ModelReads {

    private ModelReads() {
    }

    static void assertValue(byte[] expected, byte[] actual, ModelKey key) {
        if (expected == null) {
            assertNull(actual, () -> "key " + key + " should be absent");
        } else {
            assertArrayEquals(expected, actual, () -> "value of key " + key);
        }
    }

    /** A whole scan, forward or backward, yields exactly {@code expected}'s entries in order. */
    static void scan(Db db, ReadOptions read, NavigableMap<ModelKey, byte[]> expected, boolean backward) {
        List<Map.Entry<ModelKey, byte[]>> actual = new ArrayList<>();
        try (DbIterator it = db.iterator(read)) {
            if (backward) {
                for (it.seekToLast(); it.valid(); it.prev()) {
                    actual.add(Map.entry(new ModelKey(it.key()), it.value()));
                }
            } else {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    actual.add(Map.entry(new ModelKey(it.key()), it.value()));
                }
            }
        }
        List<Map.Entry<ModelKey, byte[]>> wanted = new ArrayList<>(
                (backward ? expected.descendingMap() : expected).entrySet());
        assertEquals(wanted.size(), actual.size(), () -> "entries: expected " + wanted + " got " + actual);
        for (int i = 0; i < wanted.size(); i++) {
            assertEquals(wanted.get(i).getKey(), actual.get(i).getKey());
            assertArrayEquals(wanted.get(i).getValue(), actual.get(i).getValue(), "value of " + wanted.get(i).getKey());
        }
    }

    /**
     * A seek to {@code start}, then next ({@code true}) and prev moves: at every step the iterator is at the
     * model's neighbouring key, with its value, and its copies of key and value agree with its views.
     */
    static void walk(Db db, NavigableMap<ModelKey, byte[]> model, ModelKey start, List<Boolean> forwardMoves) {
        try (DbIterator it = db.iterator()) {
            it.seek(start.bytes());
            ModelKey expected = model.ceilingKey(start);
            for (boolean forward : forwardMoves) {
                if (expected == null) {
                    assertFalse(it.valid(), "iterator should be exhausted");
                    return;
                }
                assertTrue(it.valid());
                assertEquals(expected, new ModelKey(it.key()));
                assertArrayEquals(model.get(expected), it.value(), "value of " + expected);
                IteratorCopies.assertCopiesMatch(it);
                if (forward) {
                    it.next();
                    expected = model.higherKey(expected);
                } else {
                    it.prev();
                    expected = model.lowerKey(expected);
                }
            }
        }
    }
}

package io.varve.kafka.streams;

import io.varve.kafka.streams.store.VarveVersionedStore;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.VersionedRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.apache.kafka.streams.state.VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT;
import static org.apache.kafka.streams.state.VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Cases of the versioned store at the edges of its history retention and across a reopen. */
class VarveVersionedStoreTest {

    private static final long SEGMENT = 10;

    @TempDir
    Path dir;

    private VarveVersionedStore open(long retention) {
        VarveVersionedStore store = new VarveVersionedStore("versioned", retention, SEGMENT, VarveStoreConfig::options);
        store.init(new TestStoreContext(dir), store);
        return store;
    }

    private static Bytes key(String key) {
        return Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static String render(VersionedRecord<byte[]> record) {
        return VarveVersionedStoreProperties.render(record);
    }

    @Test
    void aVersionThatStillHoldsWithinTheRetentionSurvivesTheDropOfItsNeighbours() {
        VarveVersionedStore store = open(25);
        try {
            store.put(key("k"), value("a"), 10);
            store.put(key("k"), value("b"), 32);
            // Stream time 56: the retention starts at 31, in the segment of "a"'s end (30..39), which must stay.
            store.put(key("other"), value("x"), 56);
            assertEquals(render(new VersionedRecord<>(value("a"), 10, 32)), render(store.get(key("k"), 31)));
            assertNull(store.get(key("k"), 30), "before the retention only the latest value answers");
        } finally {
            store.close();
        }
    }

    @Test
    void zeroHistoryRetentionKeepsOnlyTheLatestValue() {
        VarveVersionedStore store = open(0);
        try {
            assertEquals(PUT_RETURN_CODE_VALID_TO_UNDEFINED, store.put(key("k"), value("v"), 10));
            assertEquals(PUT_RETURN_CODE_VALID_TO_UNDEFINED, store.put(key("k"), value("updated"), 10));
            assertEquals(PUT_RETURN_CODE_VALID_TO_UNDEFINED, store.put(key("k"), value("v2"), 12));
            assertEquals(render(new VersionedRecord<>(value("v2"), 12)), render(store.get(key("k"), 12)));
            assertNull(store.get(key("k"), 11), "older versions are out of the retention at once");
            assertEquals(PUT_RETURN_CODE_NOT_PUT, store.put(key("k2"), value("late"), 11));
            assertNull(store.get(key("k2")));
        } finally {
            store.close();
        }
    }

    @Test
    void aReopenedStoreKeepsItsStreamTimeAndRefusesWhatWasAlreadyTooLate() {
        VarveVersionedStore store = open(25);
        store.put(key("k"), value("a"), 10);
        store.put(key("k"), value("b"), 100);
        store.close();

        store = open(25);
        try {
            assertEquals(100, store.observedStreamTime());
            assertEquals(PUT_RETURN_CODE_NOT_PUT, store.put(key("k"), value("late"), 74));
            assertNull(store.get(key("k"), 50), "as of a time before the retention, the latest value is too new");
            assertEquals(render(new VersionedRecord<>(value("b"), 100)), render(store.get(key("k"))));
        } finally {
            store.close();
        }
    }
}

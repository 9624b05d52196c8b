package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An entry no table block could hold is refused when it is written, not when its memtable is flushed: a
 * refused write leaves the database writable, flushable and reopenable.
 */
class EntryLimitTest {

    /** With {@link #OVERSIZED_VALUE}: one byte more than the limit allows. */
    private static final byte[] KEY = {0};
    private static final byte[] OVERSIZED_VALUE = new byte[(int) WriteBatch.MAX_ENTRY_BYTES];

    @Test
    void everyWriteRefusesAnEntryOverTheLimitAndWritesNothing() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/entry-limit");
        try (Db db = Db.open(dir, Options.defaults().withFileSystem(fs))) {
            db.put("before".getBytes(), "1".getBytes());

            EntryTooLargeException refused = assertThrows(EntryTooLargeException.class,
                    () -> db.put(KEY, OVERSIZED_VALUE));
            assertEquals(WriteBatch.MAX_ENTRY_BYTES + 1, refused.entryBytes());
            byte[] oversizedKey = new byte[(int) WriteBatch.MAX_ENTRY_BYTES + 1];
            assertThrows(EntryTooLargeException.class, () -> db.delete(oversizedKey));

            WriteBatch batch = new WriteBatch().put("in-batch".getBytes(), "2".getBytes());
            assertThrows(EntryTooLargeException.class, () -> batch.put(KEY, OVERSIZED_VALUE));
            assertEquals(1, batch.count(), "the refused entry left the batch as it was");
            db.write(batch, WriteOptions.DEFAULT);

            assertNull(db.get(KEY));
            db.flush();
            db.put("after".getBytes(), "3".getBytes());
        }
        try (Db reopened = Db.open(dir, Options.defaults().withFileSystem(fs))) {
            assertArrayEquals("1".getBytes(), reopened.get("before".getBytes()));
            assertArrayEquals("2".getBytes(), reopened.get("in-batch".getBytes()));
            assertArrayEquals("3".getBytes(), reopened.get("after".getBytes()));
            assertNull(reopened.get(KEY));
        }
    }

    @Test
    void mergeOperandsAndRangeDeletesAreHeldToTheSameLimit() {
        WriteBatch batch = new WriteBatch();
        assertThrows(EntryTooLargeException.class, () -> batch.merge(KEY, OVERSIZED_VALUE));
        assertThrows(EntryTooLargeException.class, () -> batch.deleteRange(KEY, OVERSIZED_VALUE));
        assertEquals(0, batch.count());
    }
}

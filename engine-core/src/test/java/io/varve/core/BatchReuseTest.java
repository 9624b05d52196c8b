package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link Db#write} commits the batch's encoding in place, without copying it first: the log buffer and the
 * memtable take their bytes straight from the batch. Once {@code write} returns, the batch belongs to the
 * caller again, so clearing and refilling it (which overwrites the same bytes) must change neither what
 * readers see nor what the log replays after a crash.
 */
class BatchReuseTest {

    private static final Path DIR = Path.of("/reuse");

    @ParameterizedTest(name = "unordered={0}")
    @ValueSource(booleans = {false, true})
    void refillingACommittedBatchChangesNeitherTheMemtableNorTheLog(boolean unordered) throws Exception {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withUnorderedWrite(unordered);
        byte[] key = bytes("key");
        byte[] committed = new byte[100];
        Arrays.fill(committed, (byte) 'c');
        byte[] other = new byte[100];
        Arrays.fill(other, (byte) 'x');

        Db db = Db.open(DIR, options);
        WriteBatch batch = new WriteBatch().put(key, committed).put(bytes("second"), committed);
        db.write(batch, WriteOptions.SYNC);
        // Same keys, same lengths: every byte of the encoding is rewritten at the same offsets.
        batch.clear().put(key, other).put(bytes("second"), other);
        batch.clear().put(bytes("never"), other).put(key, other);

        assertArrayEquals(committed, db.get(key), "the memtable holds its own copy");
        assertArrayEquals(committed, db.get(bytes("second")));
        assertNull(db.get(bytes("never")));

        fs.crash(); // keeps exactly what was synced: the log replays the committed batch
        try {
            db.close();
        } catch (RuntimeException expected) {
            // The handles belong to the crashed process.
        }
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(committed, reopened.get(key), "the log holds its own copy");
            assertArrayEquals(committed, reopened.get(bytes("second")));
            assertNull(reopened.get(bytes("never")));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

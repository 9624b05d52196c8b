package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A read-only database resolves stored operands, in tables and in the replayed log, and refuses merges. */
class ReadOnlyMergeTest {

    private static final MergeOperator ADD = MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private static byte[] int64(long v) {
        return MergeOperators.int64(v, ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void readsOperandsFromTablesAndTheLogAndRefusesNewOnes() throws IOException {
        Path dir = Path.of("/ro");
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(ADD);
        try (Db db = Db.open(dir, options)) {
            db.put(KEY, int64(10));
            db.merge(KEY, int64(1));
            db.flush();
            db.merge(KEY, int64(2)); // only in the log
        }
        try (Db db = Db.openReadOnly(dir, options)) {
            assertArrayEquals(int64(13), db.get(KEY));
            try (DbIterator it = db.iterator()) {
                it.seekToFirst();
                assertTrue(it.valid());
                assertArrayEquals(int64(13), it.value());
            }
            assertThrows(ReadOnlyDbException.class, () -> db.merge(KEY, int64(1)));
        }
    }
}

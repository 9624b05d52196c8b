package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Turning forward after a backward scan that skipped a range-deleted stretch: the sources moved past the
 * stretch hold hidden entries of the keys before the current one, which must not come back.
 */
class RangeSkipDirectionTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void nextAfterABackwardSkipLeavesTheLastKey() throws IOException {
        try (Db db = Db.open(Path.of("/db"), Options.defaults().withFileSystem(new MemFileSystem()))) {
            db.put(b("k01"), b("0"));
            db.delete(b("k00"));
            db.flush(); // a table wholly older than the range deletions below, so the iterator skips over it
            db.write(new WriteBatch().put(b("k00"), b("b")).deleteRange(b("k00"), b("k03")).put(b("k00"), b("a")),
                    WriteOptions.DEFAULT);
            db.write(new WriteBatch().put(b("k01"), b("b")).deleteRange(b("k02"), b("k05")).put(b("k01"), b("a")),
                    WriteOptions.DEFAULT);
            try (DbIterator it = db.iterator()) {
                it.seekForPrev(b("k04"));
                assertTrue(it.valid());
                assertArrayEquals(b("k01"), it.key());
                it.next();
                assertFalse(it.valid(), "nothing after k01");
                it.seekForPrev(b("k01"));
                it.prev();
                assertArrayEquals(b("k00"), it.key());
                it.next();
                assertArrayEquals(b("k01"), it.key());
                assertArrayEquals(b("a"), it.value());
            }
        }
    }
}

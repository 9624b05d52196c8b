package io.varve.core.internal.sst;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.LookupResult;
import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table written when blocks were compressed by lz4-java still reads, entry for entry, through the engine's
 * own decoder: the stored format is standard LZ4 and did not change with the codec.
 */
class LegacyTableTest {

    private static final Path PATH = DIR.resolve("000007.sst");

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTableCompressedByLz4JavaReadsTheSame(boolean withCache) throws IOException {
        MemFileSystem fs = memFs();
        try (InputStream stored = LegacyTableTest.class.getResourceAsStream("legacy-lz4-table.sst")) {
            assertNotNull(stored, "the legacy table is a test resource");
            overwrite(fs, PATH, stored.readAllBytes());
        }
        List<Entry> entries = LegacyTableEntries.entries();
        TableReader reader = open(fs, PATH, 7, withCache ? new BlockCache(1 << 20, 2) : null);
        try {
            TableProperties properties = reader.properties();
            assertTrue(properties.compressedDataBlockCount() > 0, "the file must hold LZ4 blocks to prove anything");
            reader.verifyContents();
            try (InternalIterator it = reader.newIterator()) {
                assertEquals(entries, scanForward(it));
            }
            LookupResult result = new LookupResult();
            for (Entry e : entries) {
                reader.get(segment(e.userKey()), InternalKey.MAX_SEQUENCE, result);
                if (e.isPut()) {
                    assertEquals(LookupResult.Status.FOUND, result.status());
                    assertArrayEquals(e.value(), result.value().toArray(ValueLayout.JAVA_BYTE));
                } else {
                    assertEquals(LookupResult.Status.DELETED, result.status());
                }
            }
        } finally {
            reader.release();
        }
    }
}

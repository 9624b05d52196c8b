package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class TableOptionsTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        TableOptions o = TableOptions.defaults();
        assertEquals(4096, o.blockSize());
        assertEquals(16, o.restartInterval());
        assertEquals(10, o.bloomBitsPerKey());
        assertTrue(o.compression());
        assertFalse(o.dataBlockHashIndex());
    }

    @Test
    void withersReturnValidatedCopies() {
        TableOptions o = TableOptions.defaults().withBlockSize(64).withRestartInterval(1).withBloomBitsPerKey(0)
                .withCompression(false);
        assertEquals(64, o.blockSize());
        assertEquals(1, o.restartInterval());
        assertEquals(0, o.bloomBitsPerKey());
        assertFalse(o.compression());
        assertEquals(4096, TableOptions.defaults().blockSize(), "defaults unchanged");
        assertEquals(o, TableOptions.defaults().withBlockSize(64).withRestartInterval(1).withBloomBitsPerKey(0)
                .withCompression(false));
        assertNotEquals(o, TableOptions.defaults());
        assertTrue(o.withDataBlockHashIndex(true).dataBlockHashIndex());
        assertNotEquals(o, o.withDataBlockHashIndex(true));
    }

    @Test
    void invalidValuesAreRejected() {
        TableOptions d = TableOptions.defaults();
        assertThrows(IllegalArgumentException.class, () -> d.withBlockSize(0));
        assertThrows(IllegalArgumentException.class, () -> d.withBlockSize(TableFormat.MAX_TARGET_BLOCK_SIZE + 1));
        assertThrows(IllegalArgumentException.class, () -> d.withRestartInterval(0));
        assertThrows(IllegalArgumentException.class, () -> d.withBloomBitsPerKey(-1));
        assertThrows(IllegalArgumentException.class, () -> d.withBloomBitsPerKey(65));
    }
}

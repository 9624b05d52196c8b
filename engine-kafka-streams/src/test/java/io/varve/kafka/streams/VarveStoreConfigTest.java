package io.varve.kafka.streams;

import io.varve.core.Options;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslWindowParams;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VarveStoreConfigTest {

    @Test
    void settingsComeFromTheApplicationConfigurationAsNumbersOrText() {
        Options options = VarveStoreConfig.options(Map.of(
                VarveStoreConfig.WRITE_BUFFER_BYTES, "1048576",
                VarveStoreConfig.MAX_IMMUTABLE_MEMTABLES, 2,
                VarveStoreConfig.BLOCK_CACHE_BYTES, 3L << 20));
        assertEquals(1L << 20, options.writeBufferSize());
        assertEquals(2, options.maxImmutableMemtables());
        assertEquals(3L << 20, options.blockCacheSize());
        assertEquals((1L << 20) * 3 + (3L << 20), VarveStoreConfig.perStoreMemoryBound(Map.of(
                VarveStoreConfig.WRITE_BUFFER_BYTES, "1048576",
                VarveStoreConfig.MAX_IMMUTABLE_MEMTABLES, 2,
                VarveStoreConfig.BLOCK_CACHE_BYTES, 3L << 20)));
    }

    @Test
    void defaultsBoundEachStoreToTwelveMebibytes() {
        assertEquals(12L << 20, VarveStoreConfig.perStoreMemoryBound(Map.of()));
        Options options = VarveStoreConfig.options(Map.of());
        assertEquals(4L << 20, options.writeBufferSize());
        assertEquals(1, options.maxImmutableMemtables());
    }

    @Test
    void aSettingThatIsNoNumberIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VarveStoreConfig.options(Map.of(VarveStoreConfig.BLOCK_CACHE_BYTES, "lots")));
        assertTrue(e.getMessage().contains(VarveStoreConfig.BLOCK_CACHE_BYTES), e.getMessage());
    }

    @Test
    void emitOnWindowCloseIsRefusedWhenTheTopologyIsBuilt() {
        VarveDslStoreSuppliers suppliers = new VarveDslStoreSuppliers();
        assertThrows(UnsupportedOperationException.class, () -> suppliers.windowStore(new DslWindowParams("w",
                Duration.ofMinutes(1), Duration.ofSeconds(10), false, EmitStrategy.onWindowClose(), false, true)));
        assertThrows(UnsupportedOperationException.class, () -> suppliers.sessionStore(new DslSessionParams("s",
                Duration.ofMinutes(1), EmitStrategy.onWindowClose())));
        assertEquals("w", suppliers.windowStore(new DslWindowParams("w", Duration.ofMinutes(1),
                Duration.ofSeconds(10), false, EmitStrategy.onWindowUpdate(), false, true)).name());
    }
}

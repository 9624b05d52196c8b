package io.varve.kafka.streams;

import io.varve.core.Options;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslWindowParams;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VarveStoreConfigTest {

    @Test
    void settingsComeFromTheApplicationConfigurationAsNumbersOrText() {
        Map<String, Object> configs = Map.of(
                VarveStoreConfig.WRITE_BUFFER_BYTES, "1048576",
                VarveStoreConfig.MAX_IMMUTABLE_MEMTABLES, 2,
                VarveStoreConfig.JVM_BLOCK_CACHE_BYTES, (3L << 20) + 1,
                VarveStoreConfig.JVM_WRITE_BUFFER_BYTES, Long.toString((5L << 20) + 1));
        Options options = VarveStoreConfig.options(configs);
        assertEquals(1L << 20, options.writeBufferSize());
        assertEquals(2, options.maxImmutableMemtables());
        assertEquals((3L << 20) + 1, options.blockCache().capacityBytes());
        assertEquals((5L << 20) + 1, options.writeBufferManager().budgetBytes());
        assertEquals((8L << 20) + 2, VarveStoreConfig.memoryBound(configs));
    }

    @Test
    void everyStoreConfiguredAlikeSharesOneCacheAndOneBudget() {
        Map<String, Object> app = Map.of(VarveStoreConfig.JVM_BLOCK_CACHE_BYTES, (7L << 20) + 3,
                VarveStoreConfig.JVM_WRITE_BUFFER_BYTES, (7L << 20) + 3);
        Options first = VarveStoreConfig.options(app);
        Options second = VarveStoreConfig.options(app);
        assertSame(first.blockCache(), second.blockCache());
        assertSame(first.writeBufferManager(), second.writeBufferManager());
        assertSame(VarveMemory.blockCache(app), first.blockCache());
        assertSame(VarveMemory.writeBuffers(app), first.writeBufferManager());
        Options other = VarveStoreConfig.options(Map.of(VarveStoreConfig.JVM_BLOCK_CACHE_BYTES, (7L << 20) + 4));
        assertNotSame(first.blockCache(), other.blockCache(), "another figure, another cache");
    }

    @Test
    void storesRunWithoutAWriteAheadLogUnlessTheConfigurationTurnsItOn() {
        assertFalse(VarveStoreConfig.options(Map.of()).writeAheadLog(), "Kafka's RocksDB stores run with it off");
        assertTrue(VarveStoreConfig.options(Map.of(VarveStoreConfig.WRITE_AHEAD_LOG, true)).writeAheadLog());
        assertTrue(VarveStoreConfig.options(Map.of(VarveStoreConfig.WRITE_AHEAD_LOG, " TRUE ")).writeAheadLog());
        assertFalse(VarveStoreConfig.options(Map.of(VarveStoreConfig.WRITE_AHEAD_LOG, "false")).writeAheadLog());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VarveStoreConfig.options(Map.of(VarveStoreConfig.WRITE_AHEAD_LOG, "yes")));
        assertTrue(e.getMessage().contains(VarveStoreConfig.WRITE_AHEAD_LOG), e.getMessage());
    }

    @Test
    void defaultsBoundAllStoresOfTheJvmToOneHundredAndTwentyEightMebibytes() {
        assertEquals(128L << 20, VarveStoreConfig.memoryBound(Map.of()));
        Options options = VarveStoreConfig.options(Map.of());
        assertEquals(4L << 20, options.writeBufferSize());
        assertEquals(1, options.maxImmutableMemtables());
        assertEquals(64L << 20, options.blockCache().capacityBytes());
        assertEquals(64L << 20, options.writeBufferManager().budgetBytes());
    }

    @Test
    void aSettingThatIsNoPositiveNumberIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VarveStoreConfig.options(Map.of(VarveStoreConfig.JVM_BLOCK_CACHE_BYTES, "lots")));
        assertTrue(e.getMessage().contains(VarveStoreConfig.JVM_BLOCK_CACHE_BYTES), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> VarveStoreConfig.options(Map.of(VarveStoreConfig.JVM_WRITE_BUFFER_BYTES, 0)));
        assertTrue(e.getMessage().contains(VarveStoreConfig.JVM_WRITE_BUFFER_BYTES), e.getMessage());
    }

    @Test
    void operatorsEmittingOnWindowCloseGetVarveStores() {
        VarveDslStoreSuppliers suppliers = new VarveDslStoreSuppliers();
        WindowBytesStoreSupplier windows = suppliers.windowStore(new DslWindowParams("w", Duration.ofMinutes(1),
                Duration.ofSeconds(10), false, EmitStrategy.onWindowClose(), false, true));
        assertEquals("w", windows.name());
        assertEquals(10_000, windows.windowSize());
        assertEquals(VarveStores.METRICS_SCOPE, windows.metricsScope());
        SessionBytesStoreSupplier sessions = suppliers.sessionStore(new DslSessionParams("s", Duration.ofMinutes(1),
                EmitStrategy.onWindowClose()));
        assertEquals("s", sessions.name());
        assertEquals(VarveStores.METRICS_SCOPE, sessions.metricsScope());
    }
}

package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.MemFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The index's own accounting of its heap use, for a million entries: at most 16 bytes per entry. */
class IndexFootprintTest {

    @Test
    void aMillionEntriesOverAThousandGroupsCostAtMost16BytesEach() throws Exception {
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(new MemFileSystem());
        try (RaftLogEngine engine = RaftLogEngine.open(Path.of("/footprint"), options)) {
            int groups = 1000;
            int perBatch = 10;
            byte[] payload = new byte[8];
            for (int round = 0; round < 1000 / perBatch; round++) {
                for (int g0 = 0; g0 < groups; g0 += 100) {
                    LogBatch batch = new LogBatch();
                    for (int g = g0; g < g0 + 100; g++) {
                        List<byte[]> es = new ArrayList<>();
                        for (int i = 0; i < perBatch; i++) {
                            es.add(payload);
                        }
                        batch.addEntries(g, 1L + (long) round * perBatch, es);
                    }
                    engine.write(batch, false);
                }
            }
            EngineStats stats = engine.stats();
            assertEquals(1_000_000, stats.indexedEntries());
            System.out.printf("index: %d bytes for %d entries = %.2f bytes/entry%n", stats.indexHeapBytes(),
                    stats.indexedEntries(), stats.indexBytesPerEntry());
            assertTrue(stats.indexBytesPerEntry() <= 16, "bytes per entry: " + stats.indexBytesPerEntry());
        }
    }
}

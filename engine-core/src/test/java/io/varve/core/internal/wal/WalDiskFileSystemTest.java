package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.varve.base.fs.DiskFileSystem;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same round trip as the model property, once, through a real file. */
class WalDiskFileSystemTest {

    @Test
    void roundTripThroughARealFile(@TempDir Path dir) throws IOException {
        DiskFileSystem fs = DiskFileSystem.INSTANCE;
        Path path = dir.resolve("000009.log");
        List<byte[]> payloads = new ArrayList<>();
        try (WalWriter writer = new WalWriter(fs.create(path), 9)) {
            int[] sizes = {0, 1, WalFormat.MAX_FRAGMENT_LENGTH, 100, WalFormat.BLOCK_SIZE, 100 * 1024, 17};
            for (int i = 0; i < sizes.length; i++) {
                payloads.add(WalTestSupport.payload(sizes[i], i));
                writer.append(ByteBuffer.wrap(payloads.get(i)));
                if (i % 3 == 2) {
                    writer.sync();
                }
            }
            // A record that leaves a 3-byte trailer, then one more so the trailer is written.
            payloads.add(WalTestSupport.payload(WalTestSupport.sizeLeaving(writer.size(), 3), 99));
            writer.append(ByteBuffer.wrap(payloads.getLast()));
            payloads.add(WalTestSupport.payload(5, 100));
            writer.append(ByteBuffer.wrap(payloads.getLast()));
            writer.sync();
            assertEquals(writer.size(), Files.size(path));
        }
        Outcome outcome = WalTestSupport.readAll(fs.openReadable(path), 9);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(payloads, outcome.records(), payloads.size());
        assertEquals(WalReader.End.END_OF_FILE, outcome.end());
        assertEquals(Files.size(path), outcome.offset());
    }
}

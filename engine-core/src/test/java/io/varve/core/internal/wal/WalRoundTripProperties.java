package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.wal.WalOps.Op;
import io.varve.core.internal.wal.WalTestSupport.CountingFile;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Model test: whatever sequence of appends, flushes and syncs is run, reading the log back yields exactly the
 * appended payloads (the oracle is the list itself), the writer's size accounting matches the format, and
 * the file is only written by flushes, one write call per non-empty flush.
 */
class WalRoundTripProperties {

    @Provide
    Arbitrary<List<Op>> operations() {
        return WalOps.ops().list().ofMaxSize(40);
    }

    @Property(tries = 150)
    void readBackEqualsWhatWasAppended(@ForAll("operations") List<Op> ops, @ForAll long logNumber)
            throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/db");
        fs.createDirectories(dir);
        Path path = dir.resolve("000001.log");
        CountingFile file = new CountingFile(fs.create(path));
        List<byte[]> oracle = new ArrayList<>();

        try (WalWriter writer = new WalWriter(file, logNumber)) {
            long flushed = 0;
            for (Op op : ops) {
                switch (op) {
                    case WalOps.Flush f -> flushed = checkedFlush(writer, file, fs, path, flushed, false);
                    case WalOps.Sync s -> flushed = checkedFlush(writer, file, fs, path, flushed, true);
                    default -> {
                        long before = writer.size();
                        byte[] payload = WalOps.payloadOf(op, before);
                        WalOps.append(writer, payload, WalOps.formOf(op));
                        oracle.add(payload);
                        assertEquals(before + WalFormat.encodedLength(before, payload.length), writer.size());
                        assertEquals(flushed, fs.size(path), "append must not write to the file");
                    }
                }
            }
            assertEquals(logNumber, writer.logNumber());
        }

        Outcome outcome = WalTestSupport.readAll(fs.openReadable(path), logNumber);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(oracle, outcome.records(), oracle.size());
        assertEquals(WalReader.End.END_OF_FILE, outcome.end());
        assertEquals(fs.size(path), outcome.offset(), "a log written by the writer ends at its last record");
    }

    private static long checkedFlush(WalWriter writer, CountingFile file, MemFileSystem fs, Path path,
            long flushed, boolean sync) throws IOException {
        int writesBefore = file.writes;
        if (sync) {
            writer.sync();
        } else {
            writer.flush();
        }
        assertEquals(writer.size(), fs.size(path), "a flush writes everything buffered");
        int expectedWrites = writer.size() == flushed ? writesBefore : writesBefore + 1;
        assertEquals(expectedWrites, file.writes, "one write call per non-empty flush");
        return writer.size();
    }
}

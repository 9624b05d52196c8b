package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.core.internal.wal.WalOps.Op;
import io.varve.core.internal.wal.WalTestSupport.Log;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A machine crash keeps every synced byte and, with {@code crash(random)}, a random part of the rest: a prefix,
 * or sectors each kept or zero-filled. The log read back must be a prefix of what was appended that includes
 * everything appended before the last sync, never wrong data. When the crash kept a prefix, the read ends
 * cleanly or with a {@link TruncatedRecordException}; when it lost a sector, the read stops at the first
 * record the hole reaches, cleanly (zeros with nothing valid after them) or with a {@code CorruptionException}
 * (valid records after the hole), which the default recovery mode cuts there.
 */
class WalCrashProperties {

    @Provide
    Arbitrary<List<Op>> operations() {
        return WalOps.ops().list().ofMaxSize(40);
    }

    @Property(tries = 200)
    void crashLeavesTheSyncedPrefixAndAtMostATornTail(@ForAll("operations") List<Op> ops, @ForAll long logNumber,
            @ForAll boolean keepRandomUnsyncedPrefix, @ForAll long crashSeed) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/db");
        fs.createDirectories(dir);
        Path path = dir.resolve("000007.log");
        WalWriter writer = new WalWriter(fs.create(path), logNumber);
        fs.syncDirectory(dir);

        List<byte[]> appended = new ArrayList<>();
        List<Long> starts = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        int durableCount = 0;
        long syncedSize = 0;
        for (Op op : ops) {
            switch (op) {
                case WalOps.Flush f -> writer.flush();
                case WalOps.Sync s -> {
                    writer.sync();
                    durableCount = appended.size();
                    syncedSize = writer.size();
                }
                default -> {
                    byte[] payload = WalOps.payloadOf(op, writer.size());
                    starts.add(WalTestSupport.headerStart(writer.size()));
                    WalOps.append(writer, payload, WalOps.formOf(op));
                    ends.add(writer.size());
                    appended.add(payload);
                }
            }
        }
        byte[] before = contents(fs, path);
        // The writer is abandoned, as the process dies with the machine; its handle is dead after the crash.
        if (keepRandomUnsyncedPrefix) {
            fs.crash(new Random(crashSeed));
        } else {
            fs.crash();
        }

        long length = fs.size(path);
        assertTrue(length >= syncedSize, "the file system lost synced bytes");
        Outcome outcome = WalTestSupport.readAll(fs.openReadable(path), logNumber);
        assertTrue(outcome.records().size() >= durableCount, "records synced before the crash were lost");
        Log log = new Log(null, appended, starts.stream().mapToLong(Long::longValue).toArray(),
                ends.stream().mapToLong(Long::longValue).toArray());
        int lost = firstDifference(before, contents(fs, path));
        if (lost >= 0) {
            // A sector lost before later ones kept: the records that end before the hole, and nothing after.
            assertTrue(lost >= syncedSize, "the crash changed a synced byte");
            int complete = 0;
            while (complete < log.count() && log.ends()[complete] <= lost) {
                complete++;
            }
            WalTestSupport.assertPrefix(appended, outcome.records(), complete);
            return;
        }
        assertTrue(outcome.error() == null || outcome.error() instanceof TruncatedRecordException,
                () -> "a crash that keeps a prefix only truncates, but the reader reported " + outcome.error());
        // Exactly which records survive and how the read ends follows from where the file was cut.
        WalTestSupport.assertTruncatedRead(log, length, outcome);
        if (!keepRandomUnsyncedPrefix) {
            assertEquals(durableCount, outcome.records().size());
            assertNull(outcome.error(), "a crash that keeps exactly the synced bytes leaves a clean log");
        }
    }

    private static byte[] contents(MemFileSystem fs, Path path) throws IOException {
        try (ReadableFile f = fs.openReadable(path)) {
            byte[] b = new byte[(int) f.size()];
            f.readFully(ByteBuffer.wrap(b), 0);
            return b;
        }
    }

    /** The first offset where {@code after} differs from {@code before}, or -1 if it is a prefix of it. */
    private static int firstDifference(byte[] before, byte[] after) {
        for (int i = 0; i < after.length; i++) {
            if (after[i] != before[i]) {
                return i;
            }
        }
        return -1;
    }
}

package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.raftlog.format.BatchFormat;
import io.varve.raftlog.format.BatchFrame;
import io.varve.raftlog.format.FooterCodec;
import io.varve.raftlog.format.LogFileFormat;
import io.varve.raftlog.recovery.RecoveryMode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Purged append files written over by new ones: stale batches from a file's previous life never count, the
 * recovery scan stops at them cleanly, real damage in a recycled file is still found, and torn writes into a
 * recycled file recover to a prefix of what was acknowledged.
 *
 * <p>Every batch here has the same size, so a new file's batches line up with its old ones: where the new
 * batches end, an intact batch of the old life starts, the hardest case for the scan.
 */
class RecyclingTest {
    private static final Path DIR = Path.of("/recycled");
    private static final int GROUPS = 4;

    @Test
    void purgedFilesAreWrittenOverAndTheirStaleBatchesNeverCount() throws Exception {
        Run run = new Run();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            run.writeUntilRecycled(engine, 2, false);
            assertTrue(run.recycleNames().size() <= 3, "pool: " + run.recycleNames());
        }
        Path last = run.lastAppendFile();
        assertTrue(run.isRecycled(last), last + " should be a file written over");
        long end = run.ownEnd(last);
        byte[] bytes = run.read(last);
        assertTrue(end < bytes.length, "no stale bytes after the batches of " + last);
        assertTrue(Run.staleBatchAt(bytes, end, Run.sequence(last)), "the stale tail should start with an intact old batch");
        for (RecoveryMode mode : RecoveryMode.values()) {
            assertEquals(run.model, run.recovered(mode), mode.toString());
        }
    }

    @Test
    void reopeningAfterAStaleTailStartsANewFileAndKeepsRecording() throws Exception {
        Run run = new Run();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            run.writeUntilRecycled(engine, 1, false);
        }
        Path before = run.lastAppendFile();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            assertFalse(before.equals(run.lastAppendFile()), "appending after a stale tail");
            run.write(engine, true);
        }
        // The file with the stale tail is now an older file: the next one's header says where it ends.
        assertEquals(run.model, run.recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(run.ownEnd(before), run.previousEndRecordedAfter(before));
    }

    @Test
    void damageInTheLastBatchOfAnOlderRecycledFileIsFound() throws Exception {
        Run run = new Run();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            run.writeUntilRecycled(engine, 2, true);
            while (run.olderRecycledFile() == null) {
                run.write(engine, true); // until a file follows a recycled one
                assertTrue(run.written < 2000, "no recycled file was followed by another");
            }
        }
        Path older = run.olderRecycledFile();
        byte[] bytes = run.read(older);
        long lastBatch = Run.batchPositions(bytes, Run.sequence(older)).getLast();
        bytes[(int) lastBatch + 3] ^= 0x10; // the last batch's entries checksum, which its footer checksum covers
        run.overwrite(older, bytes);
        for (RecoveryMode mode : List.of(RecoveryMode.ABSOLUTE_CONSISTENCY, RecoveryMode.TOLERATE_TAIL_CORRUPTION)) {
            CorruptionException e = assertThrows(CorruptionException.class, () -> run.recovered(mode), mode.toString());
            assertEquals(older, e.file());
            assertEquals(lastBatch, e.offset());
        }
        RefModel repaired = run.recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION); // cuts the file at the damage
        assertEquals(repaired, run.recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION), "a repaired log is clean");
    }

    @Test
    void damageWithValidBatchesAfterItInTheLastRecycledFileIsNotTakenForItsTail() throws Exception {
        Run run = new Run();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            run.writeUntilRecycled(engine, 1, true);
        }
        Path last = run.lastAppendFile();
        assertTrue(run.isRecycled(last), last + " should be a file written over");
        byte[] bytes = run.read(last);
        List<Long> batches = Run.batchPositions(bytes, Run.sequence(last));
        assertTrue(batches.size() >= 3, "batches: " + batches);
        long damaged = batches.get(batches.size() - 2);
        bytes[(int) damaged + 3] ^= 0x01;
        run.overwrite(last, bytes);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> run.recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(last, e.file());
        assertEquals(damaged, e.offset());
    }

    @Test
    void tornWritesIntoARecycledFileRecoverToAPrefixContainingEverySyncedBatch() throws Exception {
        int checked = 0;
        for (long seed = 0; seed < 12; seed++) {
            Run run = new Run();
            MemFileSystem fs = run.mem;
            RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
            run.writeUntilRecycled(engine, 1, true);
            int synced = run.written;
            for (int i = 0; i < 6; i++) {
                run.write(engine, false);
            }
            assertTrue(run.isRecycled(run.lastAppendFile()));
            fs.crash(new Random(seed));
            EngineChecks.closeCrashed(engine);
            RefModel actual = run.recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION);
            boolean matched = false;
            for (int k = synced; k <= run.written && !matched; k++) {
                matched = run.states.get(k - 1).equals(actual);
            }
            assertTrue(matched, "seed " + seed + ": not the state after a prefix containing every synced batch");
            assertEquals(actual, run.recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "a later open in any mode");
            checked++;
        }
        assertEquals(12, checked);
    }

    @Test
    void thePoolIsBoundedAndEmptyInAbsoluteConsistencyMode() throws Exception {
        Run run = new Run();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, run.options(RecoveryMode.TOLERATE_TAIL_CORRUPTION)
                .withRecycledFiles(1))) {
            for (int i = 0; i < 400; i++) {
                run.write(engine, false);
                assertTrue(run.recycleNames().size() <= 1, "pool: " + run.recycleNames());
            }
            assertTrue(engine.stats().filesRecycled() > 0);
        }
        Run absolute = new Run();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, absolute.options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            for (int i = 0; i < 400; i++) {
                absolute.write(engine, false);
            }
            assertEquals(0, engine.stats().filesRecycled());
            assertTrue(engine.stats().filesDeleted() > 0);
        }
        assertEquals(List.of(), absolute.recycleNames());
    }

    /** One engine's files and the model of what was written to it. */
    static final class Run {
        final MemFileSystem mem = new MemFileSystem();
        private final RefModel model = new RefModel();
        final List<RefModel> states = new ArrayList<>();
        private final Random random = new Random(11);
        int written;

        RaftLogOptions options(RecoveryMode mode) {
            return RaftLogOptions.defaults().withFileSystem(mem).withTargetFileSize(8 << 10).withPurgeThreshold(1 << 30)
                    .withCompressionThreshold(Integer.MAX_VALUE).withRecycledFiles(3).withRecoveryMode(mode);
        }

        /** One batch of a fixed size: an entry for one group, and a compaction keeping its last two entries. */
        void write(RaftLogEngine engine, boolean sync) throws Exception {
            int g = written % GROUPS;
            long next = model.lastIndex(g) < 0 ? 1 : model.lastIndex(g) + 1;
            byte[] entry = new byte[500];
            random.nextBytes(entry);
            List<Op> ops = List.of(new Op.Append(g, next, List.of(entry)), new Op.Compact(g, Math.max(1, next - 1)));
            engine.write(Op.toBatch(ops), sync);
            model.apply(ops);
            states.add(model.copy());
            written++;
            if (written % 16 == 0) {
                engine.purgeExpiredFiles();
            }
        }

        /** Writes until at least {@code files} append files were written over, then a few more batches. */
        void writeUntilRecycled(RaftLogEngine engine, int files, boolean sync) throws Exception {
            while (engine.stats().filesRecycled() < files) {
                write(engine, sync);
                assertTrue(written < 2000, "no file was recycled");
            }
            for (int i = 0; i < 5; i++) {
                write(engine, sync);
            }
        }

        // ------------------------------------------------------------------ file inspection

        RefModel recovered(RecoveryMode mode) throws Exception {
            try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(mode))) {
                return RefModel.readFrom(engine, Workload.KEYS);
            }
        }

        List<String> recycleNames() throws Exception {
            List<String> out = new ArrayList<>();
            for (String name : mem.list(DIR)) {
                if (name.endsWith(LogFileFormat.RECYCLE_SUFFIX)) {
                    out.add(name);
                }
            }
            return out;
        }

        /** A recycled append file that is not the last one, or null. */
        Path olderRecycledFile() throws Exception {
            Path found = null;
            Path last = lastAppendFile();
            for (String name : mem.list(DIR)) {
                Path p = DIR.resolve(name);
                if (name.endsWith(LogFileFormat.APPEND_SUFFIX) && !p.equals(last) && isRecycled(p)) {
                    found = p;
                }
            }
            return found;
        }

        Path lastAppendFile() throws Exception {
            Path last = null;
            for (String name : mem.list(DIR)) {
                if (name.endsWith(LogFileFormat.APPEND_SUFFIX)) {
                    last = DIR.resolve(name);
                }
            }
            return last;
        }

        private static long sequence(Path p) {
            return Long.parseLong(p.getFileName().toString().substring(0, LogFileFormat.NAME_DIGITS));
        }

        boolean isRecycled(Path p) throws Exception {
            return (read(p)[LogFileFormat.OFFSET_FLAGS] & LogFileFormat.FLAG_RECYCLED) != 0;
        }

        /** Where the file's own batches end: the first position that is not a batch valid in this file. */
        long ownEnd(Path p) throws Exception {
            byte[] bytes = read(p);
            List<Long> ps = batchPositions(bytes, sequence(p));
            return ps.isEmpty() ? LogFileFormat.HEADER_SIZE
                    : ps.getLast() + frame(bytes, ps.getLast(), sequence(p)).totalLength();
        }

        long previousEndRecordedAfter(Path p) throws Exception {
            Path next = DIR.resolve(String.format("%016d%s", sequence(p) + 1, LogFileFormat.APPEND_SUFFIX));
            return ByteBuffer.wrap(read(next), LogFileFormat.OFFSET_PREVIOUS_END, 8)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        }

        private static List<Long> batchPositions(byte[] bytes, long seq) {
            List<Long> ps = new ArrayList<>();
            long pos = LogFileFormat.HEADER_SIZE;
            while (pos < bytes.length) {
                try {
                    long len = frame(bytes, pos, seq).totalLength();
                    ps.add(pos);
                    pos += len;
                } catch (Exception e) {
                    break;
                }
            }
            return ps;
        }

        /** Whether an intact batch of some earlier file (an older sequence) starts at {@code pos}. */
        private static boolean staleBatchAt(byte[] bytes, long pos, long seq) {
            for (long older = 1; older < seq; older++) {
                try {
                    frame(bytes, pos, older);
                    return true;
                } catch (Exception e) {
                    // not that file's
                }
            }
            return false;
        }

        private static BatchFrame frame(byte[] bytes, long pos, long seq) throws Exception {
            return BatchFrame.decode(bytes, (int) pos, bytes.length - (int) pos,
                    BatchFormat.fileBinding(LogFileFormat.QUEUE_APPEND, seq), FooterCodec.Detail.TOTALS, DIR, pos);
        }

        byte[] read(Path p) throws Exception {
            try (ReadableFile f = mem.openReadable(p)) {
                byte[] b = new byte[(int) f.size()];
                f.readFully(ByteBuffer.wrap(b), 0);
                return b;
            }
        }

        void overwrite(Path p, byte[] content) throws Exception {
            try (WritableFile f = mem.openForOverwrite(p, 0)) {
                f.write(ByteBuffer.wrap(content));
                f.sync();
            }
        }
    }
}

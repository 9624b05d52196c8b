package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.raftlog.format.LogFileFormat;
import io.varve.raftlog.recovery.RecoveryMode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The default mode's tail rule against what a committed purge depended on. A purge syncs the append queue,
 * commits, and only then deletes the append files it covered; bytes synced before a commit cannot be torn by a
 * crash, so damage that would cut them, or that takes away a commit whose purge already deleted files, is
 * refused (file and offset), while damage after the purge's sync point is still a torn tail and is cut.
 */
class PurgeCommitTailTest {
    private static final Path DIR = Path.of("/committed");

    private final MemFileSystem mem = new MemFileSystem();
    /** The model after each batch: prefixes.get(k) is the state before batch k. */
    private final List<RefModel> prefixes = new ArrayList<>();
    /** Per batch: the append file it went to and its position there. */
    private final List<Path> batchFiles = new ArrayList<>();
    private final List<Long> batchPositions = new ArrayList<>();
    private final RefModel model = new RefModel();

    private RaftLogOptions options(RecoveryMode mode) {
        return RaftLogOptions.defaults().withFileSystem(mem).withTargetFileSize(4 << 10).withRecycledFiles(0)
                .withCompressionThreshold(Integer.MAX_VALUE).withRecoveryMode(mode);
    }

    private static Path appendFile(long seq) {
        return DIR.resolve(String.format("%016d.append", seq));
    }

    private static Path rewriteFile(long seq) {
        return DIR.resolve(String.format("%016d.rewrite", seq));
    }

    /**
     * One group whose older entries are compacted away as it goes, and whose key changes with every batch: a
     * purge then deletes every append file but the active one, and its snapshot holds the key's latest value.
     */
    private void write(RaftLogEngine engine, int batches) throws Exception {
        for (int n = 0; n < batches; n++) {
            int i = batchFiles.size();
            long seq = newestAppendFile();
            long before = mem.size(appendFile(seq));
            List<Op> ops = List.of(new Op.Append(1, i + 1, List.of(Workload.payload(i, i, 600))),
                    new Op.Compact(1, i + 1), new Op.Put(1, Workload.KEYS.get(0), ("v" + i).getBytes()));
            engine.write(Op.toBatch(ops), true);
            long after = newestAppendFile();
            batchFiles.add(appendFile(after));
            batchPositions.add(after == seq ? before : LogFileFormat.HEADER_SIZE);
            if (prefixes.isEmpty()) {
                prefixes.add(model.copy());
            }
            model.apply(ops);
            prefixes.add(model.copy());
        }
    }

    private long newestAppendFile() throws Exception {
        long newest = 0;
        for (String name : mem.list(DIR)) {
            if (name.endsWith(".append")) {
                newest = Math.max(newest, Long.parseLong(name.substring(0, name.indexOf('.'))));
            }
        }
        return newest;
    }

    /**
     * Batches in several files, the newest holding two of them, then a purge, then two more batches in the
     * same file; returns the newest file's length at the purge.
     */
    private long buildWithOnePurge() throws Exception {
        long purgePoint;
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            write(engine, 14);
            while (!batchFiles.get(batchFiles.size() - 2).equals(batchFiles.getLast())
                    || batchFiles.get(batchFiles.size() - 3).equals(batchFiles.getLast())) {
                write(engine, 1);
            }
            engine.purgeExpiredFiles();
            purgePoint = mem.size(batchFiles.getLast());
            write(engine, 2);
        }
        assertFalse(mem.exists(appendFile(1)), "precondition: the purge deleted the older append files");
        assertEquals(batchFiles.get(batchFiles.size() - 4), batchFiles.getLast(),
                "precondition: the newest file holds batches on both sides of the purge");
        return purgePoint;
    }

    @Test
    void damageBeforeThePurgePointInTheNewestAppendFileIsRefused() throws Exception {
        long purgePoint = buildWithOnePurge();
        int damaged = batchFiles.size() - 4; // the first of the two batches before the purge
        Path file = batchFiles.get(damaged);
        long at = batchPositions.get(damaged);
        assertTrue(at < purgePoint);
        junkFrom(file, at);

        for (RecoveryMode mode : List.of(RecoveryMode.TOLERATE_TAIL_CORRUPTION, RecoveryMode.ABSOLUTE_CONSISTENCY)) {
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> RaftLogEngine.open(DIR, options(mode)).close(), mode.name());
            assertEquals(file, e.file(), mode.name());
            assertEquals(at, e.offset(), mode.name());
        }
        // The tolerant-of-anything mode opens, and leaves a store every mode opens again.
        RefModel tolerated = recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION);
        assertEquals(tolerated, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
    }

    @Test
    void aTornTailAfterThePurgePointIsStillCut() throws Exception {
        long purgePoint = buildWithOnePurge();
        int torn = batchFiles.size() - 2; // the first batch after the purge
        Path file = batchFiles.get(torn);
        assertEquals(purgePoint, batchPositions.get(torn));
        junkFrom(file, purgePoint);

        assertEquals(prefixes.get(torn), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(purgePoint, mem.size(file), "cut at the torn batch");
        assertEquals(prefixes.get(torn), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "the log is clean again");
    }

    @Test
    void damageThatTakesAwayTheCommitOfAPurgeThatDeletedFilesIsRefused() throws Exception {
        buildWithOnePurge();
        Path rewrite = rewriteFile(1);
        assertTrue(mem.exists(rewrite));
        junkFrom(rewrite, LogFileFormat.HEADER_SIZE);

        CorruptionException e = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(RecoveryMode.TOLERATE_TAIL_CORRUPTION)).close());
        assertEquals(rewrite, e.file());
        assertEquals(LogFileFormat.HEADER_SIZE, e.offset());
    }

    @Test
    void damageThatTakesAwayOnlyTheLatestOfTwoCommitsIsRefused() throws Exception {
        long rewriteBefore;
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            write(engine, 14);
            engine.purgeExpiredFiles();
            long oldestAfterFirst = oldestAppendFile();
            write(engine, 14);
            rewriteBefore = mem.size(rewriteFile(1));
            engine.purgeExpiredFiles();
            assertTrue(oldestAppendFile() > oldestAfterFirst, "precondition: the second purge deleted files");
        }
        assertFalse(mem.exists(rewriteFile(2)), "precondition: both purges wrote to the first rewrite file");
        junkFrom(rewriteFile(1), rewriteBefore);

        CorruptionException e = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(RecoveryMode.TOLERATE_TAIL_CORRUPTION)).close());
        assertEquals(rewriteFile(1), e.file());
        assertEquals(rewriteBefore, e.offset());
    }

    @Test
    void aCommitWhosePurgeDeletedNothingMayBeCutWithItsTail() throws Exception {
        // Over the threshold, but every old entry is live in a group too heavy to copy: the purge writes a
        // snapshot and its commit, and deletes nothing.
        RaftLogOptions heavy = options(RecoveryMode.ABSOLUTE_CONSISTENCY).withPurgeThreshold(8 << 10)
                .withPurgeRewriteMaxEntries(0);
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, heavy)) {
            for (int i = 0; i < 20; i++) {
                List<Op> ops = List.of(new Op.Append(1, i + 1, List.of(Workload.payload(i, i, 600))),
                        new Op.Put(1, Workload.KEYS.get(0), ("v" + i).getBytes()));
                engine.write(Op.toBatch(ops), true);
                model.apply(ops);
            }
            assertEquals(List.of(1L), engine.purgeExpiredFiles(), "precondition: the group is reported");
        }
        assertTrue(mem.exists(appendFile(1)), "precondition: nothing was deleted");
        assertTrue(mem.size(rewriteFile(1)) > LogFileFormat.HEADER_SIZE, "precondition: a commit was written");
        junkFrom(rewriteFile(1), LogFileFormat.HEADER_SIZE);
        // Without the commit, the append files alone give the true state.
        assertEquals(model, recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(model, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
    }

    @Test
    void damageThatTakesAwayTheCommitOfARewriteQueueCompactionThatDeletedFilesIsRefused() throws Exception {
        RaftLogOptions options = options(RecoveryMode.ABSOLUTE_CONSISTENCY).withPurgeThreshold(8 << 10)
                .withRewriteGarbageRatio(0.5);
        List<String> oldRewrites = new ArrayList<>();
        List<byte[]> oldBytes = new ArrayList<>();
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options)) {
            for (int i = 0; i < 24; i++) {
                List<Op> ops = List.of(new Op.Append(1, i + 1, List.of(Workload.payload(i, i, 600))),
                        new Op.Put(1, Workload.KEYS.get(0), ("v" + i).getBytes()));
                engine.write(Op.toBatch(ops), true);
                model.apply(ops);
            }
            engine.purgeExpiredFiles(); // copies the older entries to the rewrite queue, in several files
            for (String name : mem.list(DIR)) {
                if (name.endsWith(".rewrite")) {
                    oldRewrites.add(name);
                    oldBytes.add(read(DIR.resolve(name)));
                }
            }
            assertTrue(oldRewrites.size() >= 2, "precondition: several rewrite files " + oldRewrites);
            List<Op> compact = List.of(new Op.Compact(1, model.lastIndex(1) - 1));
            engine.write(Op.toBatch(compact), true);
            model.apply(compact);
            engine.purgeExpiredFiles(); // the copies are now garbage: the rewrite queue is compacted
        }
        for (String name : oldRewrites) {
            assertFalse(mem.exists(DIR.resolve(name)), "precondition: the compaction deleted " + name);
        }
        // A crash after the compaction deleted only the oldest rewrite file: this opens as it was.
        for (int i = 1; i < oldRewrites.size(); i++) {
            replace(DIR.resolve(oldRewrites.get(i)), oldBytes.get(i));
        }
        assertEquals(model, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
        // Damage over the compaction's commit leaves the older commits, which need the deleted file.
        Path newest = rewriteFile(newestRewriteFile());
        junkFrom(newest, LogFileFormat.HEADER_SIZE);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(RecoveryMode.TOLERATE_TAIL_CORRUPTION)).close());
        assertEquals(newest, e.file());
        assertEquals(LogFileFormat.HEADER_SIZE, e.offset());
    }

    private long newestRewriteFile() throws Exception {
        long newest = 0;
        for (String name : mem.list(DIR)) {
            if (name.endsWith(".rewrite")) {
                newest = Math.max(newest, Long.parseLong(name.substring(0, name.indexOf('.'))));
            }
        }
        return newest;
    }

    private long oldestAppendFile() throws Exception {
        long oldest = Long.MAX_VALUE;
        for (String name : mem.list(DIR)) {
            if (name.endsWith(".append")) {
                oldest = Math.min(oldest, Long.parseLong(name.substring(0, name.indexOf('.'))));
            }
        }
        return oldest;
    }

    private RefModel recovered(RecoveryMode mode) throws Exception {
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(mode))) {
            return RefModel.readFrom(engine, Workload.KEYS);
        }
    }

    /** Random bytes from {@code from} to the end of the file: no batch survives after them. */
    private void junkFrom(Path file, long from) throws Exception {
        byte[] bytes = read(file);
        Random random = new Random(from);
        for (int i = (int) from; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        replace(file, bytes);
    }

    private byte[] read(Path file) throws Exception {
        try (ReadableFile f = mem.openReadable(file)) {
            byte[] bytes = new byte[(int) f.size()];
            f.readFully(ByteBuffer.wrap(bytes), 0);
            return bytes;
        }
    }

    private void replace(Path file, byte[] bytes) throws Exception {
        try (WritableFile f = mem.create(file)) {
            f.write(ByteBuffer.wrap(bytes));
            f.sync();
        }
        mem.syncDirectory(DIR);
    }
}

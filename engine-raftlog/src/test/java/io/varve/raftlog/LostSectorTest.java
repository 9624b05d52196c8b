package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.raftlog.recovery.RecoveryMode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Unsynced bytes lost in the shapes a crash leaves besides a cut: a zero-filled hole in the middle of the
 * unsynced batches with later ones kept, and a hole inside an entries block (which the footer checksum does not
 * cover). The default mode recovers the prefix before the hole; the batches after it were never synced. A hole
 * that a batch bound after a later sync follows was durable: that is damage, refused with file and offset.
 */
class LostSectorTest {
    private static final Path DIR = Path.of("/lost");
    private static final Path FILE = DIR.resolve(String.format("%016d.append", 1));

    private MemFileSystem mem;
    private final List<RefModel> prefixes = new ArrayList<>();
    private final List<Long> positions = new ArrayList<>();

    private RaftLogOptions options(RecoveryMode mode) {
        return RaftLogOptions.defaults().withFileSystem(mem).withTargetFileSize(1 << 20)
                .withCompressionThreshold(Integer.MAX_VALUE).withRecoveryMode(mode).withRecycledFiles(0);
    }

    /** Writes six batches of 2000-byte entries: the first two synced, the rest not, except batch {@code synced}. */
    private void build(int synced) throws Exception {
        mem = new MemFileSystem();
        RefModel model = new RefModel();
        prefixes.add(model.copy());
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            for (int i = 0; i < 6; i++) {
                positions.add(mem.size(FILE));
                List<Op> ops = List.of(new Op.Append(1, i + 1, List.of(Workload.payload(i, i, 2000))),
                        new Op.Put(1, Workload.KEYS.get(0), ("b" + i).getBytes()));
                engine.write(Op.toBatch(ops), i < 2 || i == synced);
                model.apply(ops);
                prefixes.add(model.copy());
            }
        }
        positions.add(mem.size(FILE));
    }

    @Test
    void aLostMiddleBatchWithLaterUnsyncedBatchesKeptRecoversThePrefixBeforeIt() throws Exception {
        build(-1);
        zero(positions.get(3), positions.get(4)); // batch 3 lost, batches 4 and 5 (unsynced) kept
        CorruptionException strict = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY)).close());
        assertEquals(FILE, strict.file());
        assertEquals(positions.get(3), strict.offset());
        assertEquals(prefixes.get(3), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(positions.get(3), mem.size(FILE), "cut at the hole");
        assertEquals(prefixes.get(3), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "the log is clean again");
    }

    @Test
    void aLostSectorInsideAnUnsyncedBatchsEntriesEndsTheLogBeforeThatBatch() throws Exception {
        build(-1);
        zero(positions.get(4) + 600, positions.get(4) + 1112); // inside batch 4's entries; its footer is intact
        assertEquals(prefixes.get(4), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(positions.get(4), mem.size(FILE), "cut at the torn batch");
    }

    @Test
    void aHoleThatABatchWrittenAfterALaterSyncFollowsIsDamageAndFailsTheOpen() throws Exception {
        build(4); // batch 4 synced, so batch 5 is bound after a sync: batch 3 had been durable
        zero(positions.get(3), positions.get(4));
        for (RecoveryMode mode : List.of(RecoveryMode.ABSOLUTE_CONSISTENCY, RecoveryMode.TOLERATE_TAIL_CORRUPTION)) {
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> RaftLogEngine.open(DIR, options(mode)).close(), mode.name());
            assertEquals(FILE, e.file());
            assertEquals(positions.get(3), e.offset());
        }
    }

    @Test
    void aSyncedBatchsEntriesDamagedBeforeABatchBoundAfterASyncAreFoundWhenRead() throws Exception {
        build(4);
        zero(positions.get(2) + 600, positions.get(2) + 1112); // batch 2 was durable: not a tail, not cut
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            CorruptionException e = assertThrows(CorruptionException.class, () -> engine.entries(1, 3, 4, 1 << 20));
            assertEquals(FILE, e.file());
        }
    }

    private RefModel recovered(RecoveryMode mode) throws Exception {
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(mode))) {
            return RefModel.readFrom(engine, Workload.KEYS);
        }
    }

    private void zero(long from, long to) throws Exception {
        byte[] bytes;
        try (ReadableFile f = mem.openReadable(FILE)) {
            bytes = new byte[(int) f.size()];
            f.readFully(ByteBuffer.wrap(bytes), 0);
        }
        Arrays.fill(bytes, (int) from, (int) to, (byte) 0);
        try (WritableFile f = mem.create(FILE)) {
            f.write(ByteBuffer.wrap(bytes));
            f.sync();
        }
        mem.syncDirectory(DIR);
    }
}

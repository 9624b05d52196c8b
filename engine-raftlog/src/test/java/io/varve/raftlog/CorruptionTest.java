package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Damaged logs under each recovery mode: what fails, what is kept, and that errors name file and offset. */
class CorruptionTest {
    private static final Path DIR = Path.of("/damaged");
    private static final int BATCHES = 30;

    private final MemFileSystem mem = new MemFileSystem();
    /** Model state after the first k batches. */
    private final List<RefModel> prefixes = new ArrayList<>();
    /** Per append file (index = sequence - 1): the positions of its batches. */
    private final List<List<Long>> positions = new ArrayList<>();

    private RaftLogOptions options(RecoveryMode mode) {
        return RaftLogOptions.defaults().withFileSystem(mem).withTargetFileSize(8 << 10)
                .withCompressionThreshold(Integer.MAX_VALUE).withRecoveryMode(mode);
    }

    @BeforeEach
    void buildLog() throws Exception {
        Random random = new Random(3);
        RefModel model = new RefModel();
        prefixes.add(model.copy());
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            for (int i = 0; i < BATCHES; i++) {
                int g = i % 2;
                long first = model.lastIndex(g) < 0 ? 1 : model.lastIndex(g) + 1;
                List<byte[]> entries = new ArrayList<>();
                for (int k = 0; k < 4; k++) {
                    byte[] e = new byte[300];
                    random.nextBytes(e);
                    entries.add(e);
                }
                List<Op> ops = List.of(new Op.Append(g, first, entries), new Op.Put(g, Workload.KEYS.get(0),
                        ("batch" + i).getBytes()));
                engine.write(Op.toBatch(ops), true);
                model.apply(ops);
                prefixes.add(model.copy());
            }
        }
        for (long seq = 1; mem.exists(file(seq)); seq++) {
            byte[] bytes = read(file(seq));
            List<Long> ps = new ArrayList<>();
            for (long pos = LogFileFormat.HEADER_SIZE; pos < bytes.length; ) {
                ps.add(pos);
                pos += frame(bytes, pos, LogFileFormat.QUEUE_APPEND, seq, file(seq)).totalLength();
            }
            positions.add(ps);
        }
        assertTrue(positions.size() >= 4, "files: " + positions.size());
    }

    private static BatchFrame frame(byte[] bytes, long pos, int queue, long seq, Path file) throws Exception {
        return BatchFrame.decode(bytes, (int) pos, bytes.length - (int) pos, BatchFormat.fileBinding(queue, seq),
                FooterCodec.Detail.TOTALS,
                file, pos);
    }

    private static Path file(long seq) {
        return DIR.resolve(String.format("%016d.append", seq));
    }

    private int lastSeq() {
        return positions.size();
    }

    /** How many batches live in files before {@code seq}. */
    private int batchesBefore(int seq) {
        int n = 0;
        for (int s = 1; s < seq; s++) {
            n += positions.get(s - 1).size();
        }
        return n;
    }

    private byte[] read(Path p) throws Exception {
        try (ReadableFile f = mem.openReadable(p)) {
            byte[] b = new byte[(int) f.size()];
            f.readFully(ByteBuffer.wrap(b), 0);
            return b;
        }
    }

    private void replace(Path p, byte[] content) throws Exception {
        try (WritableFile f = mem.create(p)) {
            f.write(ByteBuffer.wrap(content));
            f.sync();
        }
        mem.syncDirectory(DIR);
    }

    private RefModel recovered(RecoveryMode mode) throws Exception {
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(mode))) {
            return RefModel.readFrom(engine, Workload.KEYS);
        }
    }

    private void assertCorruptionAt(RecoveryMode mode, Path file, long offset) {
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(mode)).close());
        assertEquals(file, e.file(), e.getMessage());
        assertEquals(offset, e.offset(), e.getMessage());
    }

    @Test
    void aCleanLogOpensInEveryMode() throws Exception {
        for (RecoveryMode mode : RecoveryMode.values()) {
            assertEquals(prefixes.get(BATCHES), recovered(mode), mode.name());
        }
    }

    @Test
    void aRefusedOpenReturnsOnlyAfterItsScansEnded() throws Exception {
        byte[] bytes = read(file(1));
        bytes[(int) (long) positions.get(0).get(1) + 5] ^= 0x40; // the first file: later ones are scanned ahead
        replace(file(1), bytes);
        for (int attempt = 0; attempt < 20; attempt++) {
            assertThrows(CorruptionException.class,
                    () -> RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY)).close());
            for (var e : Thread.getAllStackTraces().entrySet()) {
                boolean scanning = Arrays.stream(e.getValue())
                        .anyMatch(f -> f.getClassName().endsWith("recovery.FileScanner"));
                assertTrue(!scanning, e.getKey().getName() + " still scans after the open threw");
            }
        }
    }

    @Test
    void flippedFooterByteInTheLastFile() throws Exception {
        int seq = lastSeq();
        List<Long> ps = positions.get(seq - 1);
        assertTrue(ps.size() >= 2);
        int victim = ps.size() - 2; // not the last batch: damage in the middle of the file
        byte[] bytes = read(file(seq));
        long footerEnd = ps.get(victim) + frame(bytes, ps.get(victim), LogFileFormat.QUEUE_APPEND, seq, file(seq))
                .blockStart();
        bytes[(int) footerEnd - 3] ^= 0x40;
        replace(file(seq), bytes);

        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(seq), ps.get(victim));
        assertCorruptionAt(RecoveryMode.TOLERATE_TAIL_CORRUPTION, file(seq), ps.get(victim));
        assertEquals(prefixes.get(batchesBefore(seq) + victim), recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION));
        // The damaged file was cut at the bad batch, so the log is now clean.
        assertEquals(prefixes.get(batchesBefore(seq) + victim), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
    }

    @ParameterizedTest
    @EnumSource(RecoveryMode.class)
    void truncatedTail(RecoveryMode mode) throws Exception {
        int seq = lastSeq();
        List<Long> ps = positions.get(seq - 1);
        byte[] bytes = read(file(seq));
        long lastBatch = ps.getLast();
        replace(file(seq), Arrays.copyOf(bytes, (int) (lastBatch + (bytes.length - lastBatch) / 2)));
        if (mode == RecoveryMode.ABSOLUTE_CONSISTENCY) {
            assertCorruptionAt(mode, file(seq), lastBatch);
            return;
        }
        assertEquals(prefixes.get(BATCHES - 1), recovered(mode));
        assertEquals(prefixes.get(BATCHES - 1), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "tail was cut off");
        // Writing continues where the tail was cut.
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(mode))) {
            engine.write(new LogBatch().put(5, Workload.KEYS.get(1), new byte[] {9}), true);
        }
        assertArrayEquals(new byte[] {9}, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY).groups.get(5L).state
                .get(RefModel.key(Workload.KEYS.get(1))));
    }

    /** A crash can cut the last batch anywhere: in its header, its footer or its entries. Each is a torn tail. */
    @Test
    void everyCutOfTheLastBatchIsATornTail() throws Exception {
        int seq = lastSeq();
        byte[] bytes = read(file(seq));
        long lastBatch = positions.get(seq - 1).getLast();
        int frameEnd = (int) lastBatch
                + frame(bytes, lastBatch, LogFileFormat.QUEUE_APPEND, seq, file(seq)).blockStart();
        for (int cut = (int) lastBatch + 1; cut < bytes.length; cut += cut < frameEnd + 2 ? 1 : 97) {
            replace(file(seq), Arrays.copyOf(bytes, cut));
            assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(seq), lastBatch);
            assertEquals(prefixes.get(BATCHES - 1), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION), "cut at " + cut);
        }
    }

    /** A footer of 128 bytes has a two-byte length whose first byte carries no value bits: cut after it. */
    @Test
    void aHeaderCutInsideItsFooterLengthIsATornTail() throws Exception {
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            // PUT: tag, group, key length, "hs", value length, 122-byte value = 128 footer bytes.
            engine.write(new LogBatch().put(5, "hs".getBytes(), new byte[122]), true);
        }
        int seq = lastSeq();
        byte[] bytes = read(file(seq));
        long last = positions.get(seq - 1).getLast();
        last += frame(bytes, last, LogFileFormat.QUEUE_APPEND, seq, file(seq)).totalLength();
        assertEquals(0x80, bytes[(int) last + 1] & 0xFF, "footer length 128 starts with a byte without value bits");
        replace(file(seq), Arrays.copyOf(bytes, (int) last + 2));
        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(seq), last);
        assertEquals(prefixes.get(BATCHES), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
    }

    @Test
    void zeroFilledTailIsATornWrite() throws Exception {
        int seq = lastSeq();
        byte[] bytes = read(file(seq));
        replace(file(seq), Arrays.copyOf(bytes, bytes.length + 4096));
        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(seq), bytes.length);
        assertEquals(prefixes.get(BATCHES), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
    }

    @Test
    void garbageInTheMiddleOfAnOlderFile() throws Exception {
        int victim = 2;
        List<Long> ps = positions.getFirst();
        byte[] bytes = read(file(1));
        long start = ps.get(victim);
        long footerEnd = start + frame(bytes, start, LogFileFormat.QUEUE_APPEND, 1, file(1)).blockStart();
        Random random = new Random(5);
        for (int i = 0; i < 64; i++) {
            bytes[(int) start + 100 + i] = (byte) random.nextInt();
        }
        bytes[(int) footerEnd - 1] ^= 1; // and the footer, so the batch fails its checksum
        replace(file(1), bytes);

        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(1), start);
        assertCorruptionAt(RecoveryMode.TOLERATE_TAIL_CORRUPTION, file(1), start);
        // Tolerating anything: file 1 loses its batches from the damaged one on; the later files still apply.
        RefModel full = prefixes.get(BATCHES);
        RefModel got = recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION);
        assertEquals(full.groups.keySet(), got.groups.keySet());
        for (var e : got.groups.entrySet()) {
            RefModel.Group expected = full.groups.get(e.getKey());
            assertEquals(expected.entries.lastKey(), e.getValue().entries.lastKey());
            assertTrue(e.getValue().entries.firstKey() > expected.entries.firstKey(), "entries below the hole dropped");
            e.getValue().entries.forEach((i, v) -> assertArrayEquals(expected.entries.get(i), v, "index " + i));
            assertEquals(expected.state.keySet(), e.getValue().state.keySet());
        }
        assertEquals(got, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "the repair is durable");
    }

    @Test
    void damagedEntryPayloadIsReportedWhenRead() throws Exception {
        int seq = 2;
        long batch = positions.get(seq - 1).getFirst();
        byte[] bytes = read(file(seq));
        int blockStart = frame(bytes, batch, LogFileFormat.QUEUE_APPEND, seq, file(seq)).blockStart();
        bytes[(int) batch + blockStart + 10] ^= 0x01;
        replace(file(seq), bytes);
        int batchIndex = batchesBefore(seq);
        long group = batchIndex % 2;
        // Recovery does not read payloads: every mode opens and sees all batches.
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            long firstOfBatch = prefixes.get(batchIndex).lastIndex(group) + 1;
            CorruptionException e = assertThrows(CorruptionException.class, () -> engine.entry(group, firstOfBatch));
            assertEquals(file(seq), e.file());
            assertEquals(batch + blockStart, e.offset());
            assertArrayEquals(prefixes.get(BATCHES).groups.get(1 - group).entries.get(1L), engine.entry(1 - group, 1));
        }
    }

    @Test
    void missingFileInTheMiddle() throws Exception {
        mem.delete(file(2));
        mem.syncDirectory(DIR);
        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(2), 0);
        assertCorruptionAt(RecoveryMode.TOLERATE_TAIL_CORRUPTION, file(2), 0);
        RefModel got = recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION);
        assertEquals(prefixes.get(BATCHES).groups.keySet(), got.groups.keySet());
        // The gap was filled with an empty file: the log is clean again.
        assertEquals(got, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
    }

    @Test
    void staleBatchCopiedFromAnotherFileNeverValidates() throws Exception {
        // A valid batch of file 1, byte for byte, at the end of the last file (as if left over from reuse).
        byte[] first = read(file(1));
        List<Long> ps = positions.getFirst();
        byte[] stale = Arrays.copyOfRange(first, ps.get(0).intValue(), ps.get(1).intValue());
        int seq = lastSeq();
        byte[] last = read(file(seq));
        byte[] both = Arrays.copyOf(last, last.length + stale.length);
        System.arraycopy(stale, 0, both, last.length, stale.length);
        replace(file(seq), both);

        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(seq), last.length);
        assertEquals(prefixes.get(BATCHES), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
    }

    @Test
    void aFileWhoseCreationWasCutShortIsDropped() throws Exception {
        Path next = file(lastSeq() + 1);
        replace(next, new byte[7]); // the name became durable, the header did not
        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, next, 0);
        assertEquals(prefixes.get(BATCHES), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.TOLERATE_TAIL_CORRUPTION))) {
            engine.write(new LogBatch().put(9, Workload.KEYS.get(1), new byte[] {1}), true);
        }
        assertEquals(java.util.Set.of(0L, 1L, 9L), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY).groups.keySet());
    }

    @Test
    void damagedRewriteFile() throws Exception {
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY)
                .withPurgeThreshold(8 << 10))) {
            assertTrue(engine.purgeExpiredFiles().isEmpty());
            assertTrue(engine.stats().rewriteFiles() >= 2, engine.stats().toString());
        }
        assertEquals(prefixes.get(BATCHES), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
        Path rewrite = DIR.resolve("0000000000000001.rewrite");
        byte[] bytes = read(rewrite);
        long first = LogFileFormat.HEADER_SIZE;
        BatchFrame frame = frame(bytes, first, LogFileFormat.QUEUE_REWRITE, 1, rewrite);
        bytes[(int) first + frame.blockStart() - 2] ^= 0x10; // in the footer
        replace(rewrite, bytes);

        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, rewrite, first);
        assertCorruptionAt(RecoveryMode.TOLERATE_TAIL_CORRUPTION, rewrite, first);
        RefModel got = recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION);
        assertEquals(prefixes.get(BATCHES).groups.keySet(), got.groups.keySet());
        assertEquals(got, recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "the repair is durable");
    }

    @Test
    void damagedFileHeader() throws Exception {
        int seq = lastSeq();
        byte[] bytes = read(file(seq));
        bytes[LogFileFormat.OFFSET_SEQUENCE] ^= 0x7f;
        replace(file(seq), bytes);
        assertCorruptionAt(RecoveryMode.ABSOLUTE_CONSISTENCY, file(seq), LogFileFormat.OFFSET_CRC);
        assertCorruptionAt(RecoveryMode.TOLERATE_TAIL_CORRUPTION, file(seq), LogFileFormat.OFFSET_CRC);
        assertEquals(prefixes.get(batchesBefore(seq)), recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION));
        assertTrue(mem.exists(DIR.resolve(file(seq).getFileName() + ".corrupt")), "set aside");
        assertEquals(prefixes.get(batchesBefore(seq)), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY));
    }
}

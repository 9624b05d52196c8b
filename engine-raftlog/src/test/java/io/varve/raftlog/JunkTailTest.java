package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The default mode's tail rule: the newest file of a queue is cut at its first unreadable batch when no valid
 * batch of the file follows it, whatever the bytes there are (zeros, junk a disk returned, a torn batch).
 * Damage followed by a valid batch is not a tail and fails the open.
 */
class JunkTailTest {
    private static final Path DIR = Path.of("/junk");

    private MemFileSystem mem;
    private final List<RefModel> prefixes = new ArrayList<>();

    private RaftLogOptions options(RecoveryMode mode) {
        return RaftLogOptions.defaults().withFileSystem(mem).withTargetFileSize(1 << 20)
                .withCompressionThreshold(Integer.MAX_VALUE).withRecoveryMode(mode);
    }

    /** Writes {@code batches} synced batches into one file; returns that file and its batch positions. */
    private Path build(int batches, List<Long> positions) throws Exception {
        mem = new MemFileSystem(); // jqwik runs every try on the same instance
        prefixes.clear();
        RefModel model = new RefModel();
        prefixes.add(model.copy());
        Path file = DIR.resolve(String.format("%016d.append", 1));
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            for (int i = 0; i < batches; i++) {
                positions.add(mem.size(file));
                List<Op> ops = List.of(new Op.Append(1, i + 1, List.of(Workload.payload(i, i, 200))),
                        new Op.Put(1, Workload.KEYS.get(0), ("b" + i).getBytes()));
                engine.write(Op.toBatch(ops), true);
                model.apply(ops);
                prefixes.add(model.copy());
            }
        }
        return file;
    }

    @Property(tries = 200)
    void anyJunkAfterTheLastBatchIsCutOffInTheDefaultMode(@ForAll @IntRange(min = 1, max = 300) int length,
            @ForAll long seed) throws Exception {
        Path file = build(5, new ArrayList<>());
        byte[] bytes = read(file);
        byte[] junk = new byte[length];
        new Random(seed).nextBytes(junk);
        byte[] damaged = Arrays.copyOf(bytes, bytes.length + length);
        System.arraycopy(junk, 0, damaged, bytes.length, length);
        replace(file, damaged);

        CorruptionException strict = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY)).close());
        assertEquals(file, strict.file());
        assertEquals(bytes.length, strict.offset());
        assertEquals(prefixes.getLast(), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        assertEquals(bytes.length, mem.size(file), "the junk was cut off");
        assertEquals(prefixes.getLast(), recovered(RecoveryMode.ABSOLUTE_CONSISTENCY), "the log is clean again");
    }

    @Test
    void fortyRandomBytesAfterTheLastBatch() throws Exception {
        Path file = build(3, new ArrayList<>());
        byte[] bytes = read(file);
        byte[] damaged = Arrays.copyOf(bytes, bytes.length + 40);
        for (int i = 0; i < 40; i++) {
            damaged[bytes.length + i] = (byte) (0x5A ^ i * 37); // first byte 0x5A: "bad batch flags" before
        }
        replace(file, damaged);
        assertEquals(prefixes.getLast(), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
    }

    @Test
    void junkOverABatchInTheMiddleOfTheLastFileIsCutThereWhenNothingValidFollows() throws Exception {
        List<Long> positions = new ArrayList<>();
        Path file = build(6, positions);
        byte[] bytes = read(file);
        // Junk from batch 3 to the end: batches 3.. are gone, none of them survives to say it was durable.
        Random random = new Random(8);
        for (int i = positions.get(3).intValue(); i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        replace(file, bytes);
        assertEquals(prefixes.get(3), recovered(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
    }

    @Test
    void damageFollowedByAValidBatchIsNotATailAndFailsTheOpen() throws Exception {
        List<Long> positions = new ArrayList<>();
        Path file = build(6, positions);
        byte[] bytes = read(file);
        Random random = new Random(9);
        long damaged = positions.get(3);
        for (long i = damaged; i < positions.get(4); i++) {
            bytes[(int) i] = (byte) random.nextInt(); // batch 3 only; batches 4 and 5 stay valid
        }
        replace(file, bytes);
        for (RecoveryMode mode : List.of(RecoveryMode.ABSOLUTE_CONSISTENCY, RecoveryMode.TOLERATE_TAIL_CORRUPTION)) {
            CorruptionException e = assertThrows(CorruptionException.class,
                    () -> RaftLogEngine.open(DIR, options(mode)).close(), mode.name());
            assertEquals(file, e.file());
            assertEquals(damaged, e.offset());
        }
        assertEquals(prefixes.get(3), recovered(RecoveryMode.TOLERATE_ANY_CORRUPTION));
    }

    @Test
    void junkAtTheEndOfAFileThatIsNotTheLastFailsTheOpen() throws Exception {
        mem = new MemFileSystem();
        Path first;
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY))) {
            engine.write(new LogBatch().addEntries(1, 1, List.of(new byte[100])), true);
        }
        first = DIR.resolve(String.format("%016d.append", 1));
        // Reopening starts file 2 when file 1 cannot be resumed; force it with a small target size.
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(RecoveryMode.ABSOLUTE_CONSISTENCY)
                .withTargetFileSize(4 << 10))) {
            engine.write(new LogBatch().addEntries(1, 2, List.of(new byte[5000])), true);
        }
        assertTrue(mem.exists(DIR.resolve(String.format("%016d.append", 2))));
        byte[] bytes = read(first);
        byte[] damaged = Arrays.copyOf(bytes, bytes.length + 40);
        Arrays.fill(damaged, bytes.length, damaged.length, (byte) 0x5A);
        replace(first, damaged);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> RaftLogEngine.open(DIR, options(RecoveryMode.TOLERATE_TAIL_CORRUPTION)).close());
        assertEquals(first, e.file());
        assertEquals(bytes.length, e.offset());
    }

    private RefModel recovered(RecoveryMode mode) throws Exception {
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(mode))) {
            return RefModel.readFrom(engine, Workload.KEYS);
        }
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
}

package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Random workloads with purges (which copy, snapshot, delete, recycle and compact the rewrite queue), then
 * junk from a random offset to the end of the newest append or rewrite file, opened in the default mode. The
 * open either refuses (naming the damaged file) or yields a state that existed: after damage to the newest
 * append file, the state after a prefix of the batches; after damage to the newest rewrite file, the whole
 * state. Damage in the newest append file past where it stood after the last purge is a torn tail and must be
 * cut, not refused.
 */
class CommitBoundsProperties {
    private static final Path DIR = Path.of("/bounds");

    @Provide
    Arbitrary<List<Workload.Action>> actions() {
        return Workload.actions(4, 0).list().ofMinSize(10).ofMaxSize(80)
                .withSizeDistribution(RandomDistribution.uniform());
    }

    @Property(tries = 300)
    void junkAtTheEndOfANewestFileIsCutOnlyWhereNoCommitDependsOnIt(@ForAll("actions") List<Workload.Action> actions,
            @ForAll boolean rewriteQueue, @ForAll @IntRange(min = 0, max = 1000) int permille,
            @ForAll @IntRange(min = 0, max = 2) int recycled, @ForAll long seed) throws Exception {
        MemFileSystem mem = new MemFileSystem();
        RaftLogOptions options = RaftLogModelProperties.smallFiles(mem).withTargetFileSize(4 << 10)
                .withRecycledFiles(recycled);
        List<RefModel> states = new ArrayList<>();
        RefModel model = new RefModel();
        states.add(model.copy());
        Path purgedIn = null;
        long purgedAt = 0;
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options)) {
            for (Workload.Action action : actions) {
                switch (action) {
                    case Workload.Write w -> {
                        List<Op> ops = Workload.resolve(w.ops(), model);
                        if (model.accepts(ops)) {
                            engine.write(Op.toBatch(ops), w.sync());
                            model.apply(ops);
                            states.add(model.copy());
                        }
                    }
                    case Workload.Purge p -> {
                        engine.purgeExpiredFiles();
                        purgedIn = newest(mem, ".append");
                        purgedAt = mem.size(purgedIn);
                    }
                    default -> throw new AssertionError(action);
                }
            }
        }
        Path victim = newest(mem, rewriteQueue ? ".rewrite" : ".append");
        if (victim == null) {
            Statistics.label("outcome").collect("no such file");
            return;
        }
        long size = mem.size(victim);
        long from = LogFileFormat.HEADER_SIZE + (size - LogFileFormat.HEADER_SIZE) * permille / 1000;
        junk(mem, victim, from, size - from + 1 + new Random(seed).nextInt(64), seed);
        boolean tornTail = !rewriteQueue && (!victim.equals(purgedIn) || from >= purgedAt);

        RaftLogEngine reopened;
        try {
            reopened = RaftLogEngine.open(DIR, options.withRecoveryMode(RecoveryMode.TOLERATE_TAIL_CORRUPTION));
        } catch (CorruptionException e) {
            assertTrue(!tornTail, "junk after the last purge's point was refused: " + e.getMessage());
            assertEquals(victim, e.file(), e.getMessage());
            Statistics.label("outcome").collect("refused");
            return;
        }
        RefModel actual;
        try (reopened) {
            actual = RefModel.readFrom(reopened, Workload.KEYS);
        } catch (CorruptionException e) {
            // Junk inside the last batch's entries block: recovery reads no entries, the read finds it.
            assertEquals(victim, e.file(), e.getMessage());
            Statistics.label("outcome").collect("detected at read");
            return;
        }
        if (rewriteQueue) {
            assertEquals(model, actual, "damage to the rewrite queue that was tolerated changed the state");
            Statistics.label("outcome").collect("rewrite tail cut, state intact");
            return;
        }
        if (!states.contains(actual)) {
            fail("after junk from " + from + " in " + victim + " the state is none the batches ever produced: "
                    + actual);
        }
        Statistics.label("outcome").collect(actual.equals(model) ? "append tail cut, state intact"
                : "append tail cut to a prefix");
    }

    private static Path newest(MemFileSystem mem, String suffix) throws Exception {
        long newest = 0;
        for (String name : mem.list(DIR)) {
            if (name.endsWith(suffix)) {
                newest = Math.max(newest, Long.parseLong(name.substring(0, name.indexOf('.'))));
            }
        }
        return newest == 0 ? null : DIR.resolve(String.format("%016d%s", newest, suffix));
    }

    /** Replaces the file's bytes from {@code from} by {@code length} random ones. */
    private static void junk(MemFileSystem mem, Path file, long from, long length, long seed) throws Exception {
        byte[] bytes = new byte[(int) (from + length)];
        try (ReadableFile f = mem.openReadable(file)) {
            f.readFully(ByteBuffer.wrap(bytes, 0, (int) from), 0);
        }
        Random random = new Random(seed);
        for (int i = (int) from; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt();
        }
        try (WritableFile f = mem.create(file)) {
            f.write(ByteBuffer.wrap(bytes));
            f.sync();
        }
        mem.syncDirectory(DIR);
    }
}

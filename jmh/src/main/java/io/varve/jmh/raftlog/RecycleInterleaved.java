package io.varve.jmh.raftlog;

import io.varve.jmh.store.StoreSettings;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * {@link RaftLogRecycleBenchmark}'s stores and writes, measured interleaved: each round does a block of
 * synced writes on every store in turn (the order rotating from round to round), so that all stores share the
 * disk's conditions of the moment (on a
 * shared machine its fdatasync latency swings several-fold within minutes, which makes trials run one after
 * the other incomparable). Prints, per store, the median and minimum over rounds of the time per synced
 * write, and the medians' ratios. Not a JMH benchmark: a plain main, like {@code engine-raftlog/bench/fsync-cost.c}.
 *
 * <p>{@code java -cp jmh/target/benchmarks.jar io.varve.jmh.raftlog.RecycleInterleaved ENTRY_SIZE ROUNDS PER_ROUND}
 */
public final class RecycleInterleaved {
    private RecycleInterleaved() {
    }

    public static void main(String[] args) throws IOException {
        int entrySize = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        int perRound = Integer.parseInt(args[2]);
        String[] names = {"varve-deleting", "varve-recycling", "rocksdb"};
        Writer[] writers = new Writer[names.length];
        RaftLogOptions varve = StoreSettings.raftLogVarveSmallFiles();
        for (int s = 0; s < names.length; s++) {
            Path dir = BenchDirs.create("raftlog-interleaved-" + names[s]);
            RaftStore store = switch (names[s]) {
                case "varve-recycling" -> new VarveRaftStore(dir, varve.withRecycledFiles(4));
                case "varve-deleting" -> new VarveRaftStore(dir, varve.withRecycledFiles(0));
                default -> BenchDirs.open(names[s], dir);
            };
            writers[s] = new Writer(store, dir, entrySize);
            writers[s].prefill();
        }
        double[][] micros = new double[names.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < names.length; k++) {
                int s = (r + k) % names.length; // rotated, so no store always follows another
                long start = System.nanoTime();
                for (int i = 0; i < perRound; i++) {
                    writers[s].write(true);
                }
                micros[s][r] = (System.nanoTime() - start) / 1e3 / perRound;
            }
        }
        double[] medians = new double[names.length];
        for (int s = 0; s < names.length; s++) {
            double[] m = micros[s].clone();
            Arrays.sort(m);
            medians[s] = m[rounds / 2];
            System.out.printf("%-16s entry %5d B: median %7.0f us, min %7.0f us per synced write%s%n", names[s],
                    entrySize, medians[s], m[0], writers[s].store.details());
        }
        System.out.printf("writes/s ratios (median): recycling/deleting %.2f, recycling/rocksdb %.2f, "
                + "deleting/rocksdb %.2f%n", medians[0] / medians[1], medians[2] / medians[1], medians[2] / medians[0]);
        for (Writer w : writers) {
            w.store.close();
            BenchDirs.delete(w.dir);
        }
    }

    /** The write loop of {@link RaftLogRecycleBenchmark}, for one store. */
    private static final class Writer {
        final RaftStore store;
        final Path dir;
        final int entrySize;
        final long[] last = new long[RaftLogRecycleBenchmark.GROUPS];
        final byte[] hardState = new byte[24];
        final byte[][] pool = new byte[64][];
        final long[] groups = new long[RaftLogRecycleBenchmark.GROUPS_PER_WRITE];
        final long[] indexes = new long[RaftLogRecycleBenchmark.GROUPS_PER_WRITE];
        final byte[][] entries = new byte[RaftLogRecycleBenchmark.GROUPS_PER_WRITE][];
        int next;
        long writes;

        Writer(RaftStore store, Path dir, int entrySize) {
            this.store = store;
            this.dir = dir;
            this.entrySize = entrySize;
            Random random = new Random(1);
            for (int i = 0; i < pool.length; i++) {
                pool[i] = new byte[entrySize];
                random.nextBytes(pool[i]);
            }
        }

        void prefill() throws IOException {
            long bytesPerWrite = (long) RaftLogRecycleBenchmark.GROUPS_PER_WRITE * (entrySize + hardState.length);
            for (long w = (24L << 20) / bytesPerWrite; w > 0; w--) {
                write(false);
            }
        }

        void write(boolean sync) throws IOException {
            int keep = RaftLogRecycleBenchmark.KEEP;
            for (int i = 0; i < groups.length; i++) {
                int g = next;
                next = (next + 1) % RaftLogRecycleBenchmark.GROUPS;
                groups[i] = g;
                indexes[i] = ++last[g];
                entries[i] = pool[(int) (writes + i) & (pool.length - 1)];
            }
            store.append(groups, indexes, entries, hardState, sync);
            for (int i = 0; i < groups.length; i++) {
                if (indexes[i] % (2L * keep) == 0) {
                    store.compact(groups[i], indexes[i] - keep);
                }
            }
            if (++writes % RaftLogRecycleBenchmark.MAINTAIN_EVERY == 0) {
                store.maintain(last, keep);
            }
        }
    }
}

package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A by-hand measurement (not a test) of what the slotted layout changes for a cluster node's walks:
 * COUNTKEYSINSLOT of one slot and a node's SCAN (pages of 100) and DBSIZE over the slots of two of six
 * groups, over 100,000 string keys flushed and compacted into tables, in the plain layout (every metadata
 * record walked, its key's slot computed and compared: the walk before the slot prefix) and in the slotted
 * one (the slots' key ranges only). Prints the median of several runs of each; docs/cluster.md quotes it.
 *
 * <pre>
 *   mvn -o -q -pl engine-server -am test-compile -Djacoco.skip=true
 *   java -cp engine-server/target/test-classes:engine-server/target/classes:$(deps) \
 *       io.varve.server.store.SlotLayoutMeasurement [keys]
 * </pre>
 */
public final class SlotLayoutMeasurement {

    private static final int GROUPS = 6;
    private static final int RUNS = 7;

    private SlotLayoutMeasurement() {
    }

    public static void main(String[] args) throws IOException {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        for (boolean slotted : new boolean[] {false, true}) {
            Path dir = Files.createTempDirectory("slot-layout");
            try (Db db = Db.open(dir, Options.defaults())) {
                Keyspace keyspace = new Keyspace(db, target(db, slotted), false, System::currentTimeMillis, 1);
                load(keyspace, keys);
                db.flush();
                db.compactRange(null, null);
                report(slotted ? "slotted" : "plain", keyspace);
            } finally {
                delete(dir);
            }
        }
    }

    private static void load(Keyspace keyspace, int keys) {
        WriteBatch batch = new WriteBatch();
        byte[] value = new byte[16];
        for (int i = 0; i < keys; i++) {
            keyspace.putMetadata(batch, ("key:" + i).getBytes(StandardCharsets.UTF_8), Metadata.string(value, 0));
            if (batch.count() == 1000) {
                keyspace.commit(batch);
                batch = new WriteBatch();
            }
        }
        keyspace.commit(batch);
    }

    private static void report(String layout, Keyspace keyspace) {
        BitSet served = new BitSet(HashSlot.SLOTS);
        int perGroup = HashSlot.SLOTS / GROUPS;
        served.set(0, perGroup);
        served.set(3 * perGroup, 4 * perGroup);
        Random random = new Random(1);
        double[] count = new double[RUNS];
        double[] scan = new double[RUNS];
        double[] dbsize = new double[RUNS];
        long found = 0;
        long scanned = 0;
        for (int run = -2; run < RUNS; run++) { // two runs to warm up
            long start = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                BitSet one = new BitSet(HashSlot.SLOTS);
                one.set(random.nextInt(HashSlot.SLOTS));
                found += walk(keyspace, one, null);
            }
            long counted = System.nanoTime();
            scanned = scanInPages(keyspace, served, 100);
            long paged = System.nanoTime();
            walk(keyspace, served, null);
            long end = System.nanoTime();
            if (run >= 0) {
                count[run] = (counted - start) / 100 / 1e6;
                scan[run] = (paged - counted) / 1e6;
                dbsize[run] = (end - paged) / 1e6;
            }
        }
        System.out.printf("%-8s COUNTKEYSINSLOT %.3f ms/slot, node SCAN (count 100) %.1f ms for %d keys, "
                + "node DBSIZE %.1f ms (medians of %d; %d keys found in sampled slots)%n",
                layout, median(count), median(scan), scanned, median(dbsize), RUNS, found);
    }

    /** Counts the live keys of {@code slots}, as COUNTKEYSINSLOT and DBSIZE do. */
    private static long walk(Keyspace keyspace, BitSet slots, byte[] resumeAfter) {
        long n = 0;
        try (Snapshot snapshot = keyspace.snapshot();
             DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot), slots, new byte[0])) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                if (!Metadata.decodeHeader(it.value()).isExpired(keyspace.now())) {
                    n++;
                }
            }
        }
        return n;
    }

    /** A whole SCAN as a client runs it: pages of {@code count} records, each resuming after the last. */
    private static long scanInPages(Keyspace keyspace, BitSet slots, int count) {
        long keys = 0;
        byte[] resume = null;
        do {
            try (Snapshot snapshot = keyspace.snapshot();
                 DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot), slots, new byte[0])) {
                if (resume == null) {
                    it.seekToFirst();
                } else {
                    it.seek(resume);
                    if (it.valid() && Arrays.equals(it.key(), resume)) {
                        it.next();
                    }
                }
                int examined = 0;
                for (; it.valid() && examined < count; it.next(), examined++) {
                    resume = it.key();
                    keys++;
                }
                if (!it.valid()) {
                    resume = null;
                }
            }
        } while (resume != null);
        return keys;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static CommitTarget target(Db db, boolean slotted) {
        CommitTarget local = CommitTarget.local(db);
        return !slotted ? local : new CommitTarget() {
            @Override
            public void write(WriteBatch batch, WriteOptions options) {
                local.write(batch, options);
            }

            @Override
            public boolean local() {
                return true;
            }

            @Override
            public boolean slotsInKeys() {
                return true;
            }
        };
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

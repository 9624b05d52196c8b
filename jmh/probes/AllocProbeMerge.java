// Run from the repository root after building jmh: java --enable-native-access=ALL-UNNAMED -Xmx1g \
//     -cp jmh/target/benchmarks.jar jmh/probes/AllocProbeMerge.java
// Prints bytes allocated by the calling thread per operation (ThreadMXBean), after warm-up passes.
import io.varve.core.*;
import io.varve.core.merge.MergeOperators;
import io.varve.core.sst.TableOptions;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.file.*;
import java.util.SplittableRandom;

/** Bytes allocated per scanned entry and per merged-counter read, by the calling thread, after warm-up. */
public class AllocProbeMerge {
    static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("allocprobe");
        int keys = 200_000;
        Options options = Options.defaults().withBlockCacheSize(8 << 20)
                .withTableOptions(TableOptions.defaults().withBlockSize(4096).withCompression(true))
                .withMergeOperator(MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN));
        SplittableRandom random = new SplittableRandom(1);
        try (Db db = Db.open(dir, options)) {
            // Counters: 100,000 keys of 8 bytes, compacted, then 300,000 increments left in the memtable.
            byte[] one = MergeOperators.int64(1, ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 100_000; i++) db.put(String.format("ctr%09d", i).getBytes(), MergeOperators.int64(i, ByteOrder.LITTLE_ENDIAN));
            db.compactRange(null, null);
            for (int i = 0; i < 300_000; i++) db.merge(String.format("ctr%09d", random.nextInt(100_000)).getBytes(), one);
            byte[][] probe = new byte[4096][];
            for (int i = 0; i < probe.length; i++) probe[i] = String.format("ctr%09d", random.nextInt(100_000)).getBytes();
            MemorySegment out = MemorySegment.ofArray(new byte[8]);
            MemorySegment[] segs = new MemorySegment[probe.length];
            for (int i = 0; i < probe.length; i++) segs[i] = MemorySegment.ofArray(probe[i]);
            long reads = 0, bytes = 0, nanos = 0;
            for (int pass = 0; pass < 40; pass++) {
                long a = allocated(), t = System.nanoTime();
                for (MemorySegment s : segs) db.get(ReadOptions.DEFAULT, s, out);
                if (pass >= 20) { bytes += allocated() - a; reads += segs.length; nanos += System.nanoTime() - t; }
            }
            System.out.printf("merged-counter get (about 3 operands in the memtable over a compacted base): %.1f B per read, %.0f ns per read (loaded machine)%n",
                    (double) bytes / reads, (double) nanos / reads);
        }
    }
}

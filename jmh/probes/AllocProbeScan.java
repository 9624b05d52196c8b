// Run from the repository root after building jmh: java --enable-native-access=ALL-UNNAMED -Xmx1g \
//     -cp jmh/target/benchmarks.jar jmh/probes/AllocProbeScan.java
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
public class AllocProbeScan {
    static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("allocprobe");
        int keys = 50_000;
        Options options = Options.defaults().withBlockCacheSize(2 << 20)
                .withTableOptions(TableOptions.defaults().withBlockSize(4096).withCompression(true))
                .withMergeOperator(MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN));
        SplittableRandom random = new SplittableRandom(1);
        try (Db db = Db.open(dir, options)) {
            byte[] value = new byte[100];
            for (int i = 0; i < keys; i++) {
                for (int j = 0; j < 50; j++) value[j] = (byte) random.nextInt(256);
                System.arraycopy(value, 0, value, 50, 50);
                db.put(String.format("key%012d", i).getBytes(), value);
            }
            db.compactRange(null, null);
            byte[] k = new byte[64], v = new byte[128];
            long entries = 0, bytes = 0, nanos = 0;
            for (int pass = 0; pass < 12; pass++) {
                long a = allocated(), t = System.nanoTime();
                long n = 0;
                try (DbIterator it = db.iterator()) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        it.key(k); it.value(v); n++;
                    }
                }
                if (pass >= 6) { bytes += allocated() - a; entries += n; nanos += System.nanoTime() - t; }
            }
            System.out.printf("readseq: %.1f B per entry, %.0f ns per entry (loaded machine)%n",
                    (double) bytes / entries, (double) nanos / entries);
        }
    }
}

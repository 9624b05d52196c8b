// Run from the repository root after building jmh: java --enable-native-access=ALL-UNNAMED -Xms2g -Xmx2g \
//     -cp jmh/target/benchmarks.jar jmh/probes/FlushCpuProbe.java <valueSize> <rounds> <dir on a real disk>
// Flushes a 64 MiB memtable (random order) on one thread and on two, alternating, and prints for each flush its
// wall time, the process's CPU time and the flush thread's own; the first two rounds are warm-up.
import io.varve.base.fs.DiskFileSystem;
import io.varve.core.internal.flush.MemtableFlush;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.sst.TableOptions;
import io.varve.jmh.data.Keys;
import io.varve.jmh.data.Values;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.*;
import java.util.*;

/**
 * CPU time of a flush and how it splits between the flush thread and the block-encoding thread. CPU time
 * hardly depends on how loaded the machine is, wall time does: on a free core the two-thread flush takes about
 * the larger of its two threads' CPU times.
 */
public class FlushCpuProbe {
    public static void main(String[] a) throws Exception {
        int valueSize = Integer.parseInt(a[0]);
        int rounds = Integer.parseInt(a[1]);
        Path dir = Files.createTempDirectory(Path.of(a[2]), "probe");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        var threads = ManagementFactory.getThreadMXBean();
        Values values = new Values(valueSize, 301);
        TableOptions options = TableOptions.defaults().withBlockSize(4096).withBloomBitsPerKey(10).forLevel(0);
        int cap = (int) ((64L << 20) / (16 + valueSize)) + 1;
        int[] order = Keys.permutation(cap, 17);
        Map<Boolean, List<double[]>> results = new TreeMap<>();
        long n = 0;
        for (int r = 0; r < rounds; r++) {
            for (boolean pipelined : (r % 2 == 0 ? new boolean[]{false, true} : new boolean[]{true, false})) {
                Memtable m = new Memtable(64L << 20);
                byte[] key = new byte[16];
                for (int i = 0; i < cap; i++) {
                    Keys.write(order[i], key);
                    if (!m.add(MemorySegment.ofArray(key), InternalKey.trailer(i + 1L, ValueKind.PUT), MemorySegment.ofArray(values.get(i)))) break;
                }
                System.gc();
                long w0 = System.nanoTime(), p0 = os.getProcessCpuTime(), t0 = threads.getCurrentThreadCpuTime();
                Path path = dir.resolve((++n) + ".sst");
                MemtableFlush.write(DiskFileSystem.INSTANCE, path, n, m, options, f -> f, pipelined);
                long w = System.nanoTime() - w0, p = os.getProcessCpuTime() - p0, t = threads.getCurrentThreadCpuTime() - t0;
                m.release();
                Files.delete(path);
                if (r >= 2) results.computeIfAbsent(pipelined, k -> new ArrayList<>()).add(new double[]{w / 1e6, p / 1e6, t / 1e6});
                System.out.printf("round %d pipelined=%s wall %.0f ms, process cpu %.0f ms, flush thread cpu %.0f ms%n", r, pipelined, w / 1e6, p / 1e6, t / 1e6);
            }
        }
        for (var e : results.entrySet()) {
            double[] med = new double[3];
            for (int k = 0; k < 3; k++) { final int kk = k; double[] xs = e.getValue().stream().mapToDouble(x -> x[kk]).sorted().toArray(); med[k] = xs[xs.length / 2]; }
            System.out.printf("pipelined=%s medians: wall %.0f, process cpu %.0f, flush thread cpu %.0f (n=%d)%n", e.getKey(), med[0], med[1], med[2], e.getValue().size());
        }
        Files.delete(dir);
    }
}

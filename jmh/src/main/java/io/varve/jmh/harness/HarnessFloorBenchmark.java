package io.varve.jmh.harness;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The latency floor of this machine and of JMH's sample-time mode: an operation that does nothing but a fixed
 * amount of CPU work (a CRC32C over {@code bytes} bytes, no allocation, no shared state) and so has no reason to
 * be slow other than the harness, the JVM and the operating system. Latency benchmarks here report their tails
 * next to this floor measured in the same session. Every operation is also timed into a {@link LatencyRecorder}
 * (printed as {@code [floor-latency]}), which shows how much of sample-time mode's tail is the harness's own.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 10)
public class HarnessFloorBenchmark {

    /** 100,000 bytes take about as long as one read-view acquisition plus table lookup (~1.5 µs here). */
    @Param({"100000"})
    public int bytes;

    private byte[] data;
    private final CRC32C crc = new CRC32C();
    private final LatencyRecorder recorder = new LatencyRecorder();

    @Setup
    public void setUp() {
        data = new byte[bytes];
        new Random(1).nextBytes(data);
    }

    @Setup(org.openjdk.jmh.annotations.Level.Iteration)
    public void startIteration(IterationParams iteration) {
        recorder.recording(iteration.getType() == IterationType.MEASUREMENT);
    }

    @TearDown
    public void report() {
        System.out.println();
        System.out.println(recorder.summary("floor-latency", "bytes=" + bytes));
    }

    @Benchmark
    public long fixedWork() {
        long start = System.nanoTime();
        crc.reset();
        crc.update(data);
        long value = crc.getValue();
        recorder.record(System.nanoTime() - start);
        return value;
    }
}

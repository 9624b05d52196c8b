package io.varve.core.internal.sst;

/**
 * Cuts long CPU work that runs on a caller's thread into slices, yielding the processor between them.
 *
 * <p>Why: checking an external file for ingestion costs a few hundred microseconds of CPU, on the caller's
 * thread and at its priority. On a machine with few cores the scheduler often queues a woken writer on the
 * core that thread is using, while the other core idles, and the writer then waits up to a scheduler slice
 * (about 1.5 ms was measured) before it runs (docs/benchmarks.md, "Ingestion while writing"). A
 * {@link Thread#yield} every {@link #DEFAULT_NANOS} lets a waiting thread run first; with nothing waiting it
 * costs about a microsecond. The work still finishes: it is only reordered behind threads already waiting.
 *
 * <p>One slice per piece of work, used by one thread.
 */
public final class CpuSlice {

    /** Long enough that yielding costs about 1% of the work, short next to a writer's tail latency. */
    public static final long DEFAULT_NANOS = 100_000;

    private final long sliceNanos;
    private long yieldAt;

    /** A slice of {@link #DEFAULT_NANOS} starting now. */
    public CpuSlice() {
        this(DEFAULT_NANOS);
    }

    public CpuSlice(long sliceNanos) {
        if (sliceNanos <= 0) {
            throw new IllegalArgumentException("slice must be positive: " + sliceNanos);
        }
        this.sliceNanos = sliceNanos;
        this.yieldAt = System.nanoTime() + sliceNanos;
    }

    /** Call between steps of the work: yields if the current slice has run its length, then starts a new one. */
    public void step() {
        if (System.nanoTime() - yieldAt >= 0) {
            Thread.yield();
            yieldAt = System.nanoTime() + sliceNanos;
        }
    }
}

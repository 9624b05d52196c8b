package io.varve.core.internal.compaction;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Paces background (flush and compaction) writes to a byte rate, so that they do not starve foreground
 * reads and writes of disk bandwidth. A token bucket refilled continuously; a request larger than the
 * bucket is granted in parts. Waiting parks the background thread — never a foreground one.
 */
public final class RateLimiter {

    private final long bytesPerSecond;
    private final long burst;
    private final ReentrantLock lock = new ReentrantLock();
    private double available;
    private long lastRefill = System.nanoTime();

    /** @param bytesPerSecond the sustained rate; must be positive */
    public RateLimiter(long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.burst = Math.max(4096, bytesPerSecond / 10);
        this.available = burst;
    }

    /** Blocks until {@code bytes} may be written. */
    public void acquire(long bytes) {
        long remaining = bytes;
        while (remaining > 0) {
            long grant = Math.min(remaining, burst);
            long waitNanos;
            lock.lock();
            try {
                refill();
                available -= grant;
                waitNanos = available >= 0 ? 0 : (long) (-available * 1e9 / bytesPerSecond);
            } finally {
                lock.unlock();
            }
            // Pacing, not synchronization: the debt is repaid by time passing.
            long deadline = System.nanoTime() + waitNanos;
            while (waitNanos > 0) {
                LockSupport.parkNanos(this, waitNanos);
                waitNanos = deadline - System.nanoTime();
            }
            remaining -= grant;
        }
    }

    private void refill() {
        long now = System.nanoTime();
        available = Math.min(burst, available + (now - lastRefill) * (double) bytesPerSecond / TimeUnit.SECONDS.toNanos(1));
        lastRefill = now;
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }
}

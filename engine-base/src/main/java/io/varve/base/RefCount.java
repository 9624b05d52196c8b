package io.varve.base;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reference count that starts at one and, once it reaches zero, can never be raised again: a freed
 * object is never resurrected by a reader that raced its last release. {@link #release()} tells the caller
 * whether it dropped the last reference, so it knows to free.
 */
public final class RefCount {

    private final AtomicInteger count = new AtomicInteger(1);
    private final String what;

    /** @param what names the counted object in error messages */
    public RefCount(String what) {
        this.what = what;
    }

    /** Adds a reference unless the count already reached zero. */
    public boolean tryRetain() {
        int n;
        do {
            n = count.get();
            if (n <= 0) {
                return false;
            }
        } while (!count.compareAndSet(n, n + 1));
        return true;
    }

    public void retain() {
        if (!tryRetain()) {
            throw new IllegalStateException(what + " was already released");
        }
    }

    /** Drops a reference; true when it was the last one and the caller must free. */
    public boolean release() {
        int n;
        do {
            n = count.get();
            if (n <= 0) {
                // Checked before the decrement: a count left below zero would let tryRetain resurrect it.
                throw new IllegalStateException(what + " released more often than retained");
            }
        } while (!count.compareAndSet(n, n - 1));
        return n == 1;
    }

    public int get() {
        return count.get();
    }
}

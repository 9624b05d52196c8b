package io.varve.core.internal.wal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The first failure of a component whose failures are final, such as the write path: recorded once, then every
 * check throws it. Components register a waker that {@link #record} runs, so that threads waiting for
 * something the failure will now never deliver wake up and see it.
 *
 * <p>Wakers run on the failing thread, which may hold locks: a waker must not block on a lock that anyone
 * holds while waiting for something (try-lock it, or take a leaf lock that guards nothing but a condition).
 */
public final class StickyFailure {

    private final List<Runnable> wakers = new CopyOnWriteArrayList<>();
    private volatile Throwable cause;
    /** A failure from a background thread that no caller has been told about yet. */
    private volatile boolean unreported;

    /** Runs {@code waker} on every later {@link #record} that sets the failure. */
    public void onFailure(Runnable waker) {
        wakers.add(waker);
    }

    /**
     * Records {@code failure} unless one is recorded already, then runs the wakers.
     *
     * @param background whether no caller sees this failure as it happens (see {@link #takeUnreported})
     * @return whether this call set the failure
     */
    public boolean record(Throwable failure, boolean background) {
        boolean first;
        synchronized (this) {
            first = cause == null;
            if (first) {
                cause = failure;
                unreported = background;
            }
        }
        if (first) {
            wakers.forEach(Runnable::run);
        }
        return first;
    }

    /** The first failure, or null while healthy. */
    public Throwable cause() {
        return cause;
    }

    public boolean failed() {
        return cause != null;
    }

    /**
     * Throws the failure, if any, for a caller that must not go on: an {@link UncheckedIOException} when the
     * cause was an I/O failure, an {@link IllegalStateException} otherwise (a bug or an out-of-memory error is
     * not a broken disk), both with the original failure as their cause.
     */
    public void check(String message) {
        Throwable failure = cause;
        if (failure != null) {
            unreported = false;
            if (failure instanceof IOException io) {
                throw new UncheckedIOException(message, io);
            }
            throw new IllegalStateException(message, failure);
        }
    }

    /** Whether a background failure is still untold, clearing the mark: the caller is about to tell someone. */
    public boolean takeUnreported() {
        boolean untold = unreported;
        unreported = false;
        return untold;
    }
}

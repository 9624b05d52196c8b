package io.varve.stress;

import io.varve.base.LeakDetector;
import io.varve.base.fs.FaultInjectingFileSystem.InjectedIOException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The judgements the I/O-error campaigns share: whether what a caller saw carries the injected failure, and
 * whether a closed engine left anything it owned open.
 */
public final class FaultVerdicts {

    private FaultVerdicts() {
    }

    /** Whether {@code e}, its causes or anything suppressed along them is an injected failure. */
    public static boolean causedByInjection(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof InjectedIOException) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (causedByInjection(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The first error that is a hang or not an I/O failure carrying the injected one, or null. */
    public static String unexpected(List<Throwable> errors) {
        for (Throwable e : errors) {
            if (e instanceof Bounded.HangException) {
                return e.getMessage();
            }
            boolean io = e instanceof IOException || e instanceof UncheckedIOException;
            if (!io || !causedByInjection(e)) {
                return "an error that is not the injected I/O failure: " + describe(e);
            }
        }
        return null;
    }

    /** Null unless something {@code owner} holds now was not held before: what leaked, for the verdict. */
    public static String leaks(String owner, Set<LeakDetector.Handle> before) {
        List<LeakDetector.Handle> now = new ArrayList<>(LeakDetector.openOwnedBy(owner));
        now.removeIf(before::contains);
        return now.isEmpty() ? null : "leaked after close: " + LeakDetector.describe(now);
    }

    /** The exception, its chain of causes and the top of its stack, on one line. */
    public static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.toString());
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            b.append(" <- ").append(c);
        }
        StackTraceElement[] stack = e.getStackTrace();
        for (int i = 0; i < Math.min(6, stack.length); i++) {
            b.append(" at ").append(stack[i]);
        }
        return b.toString();
    }
}

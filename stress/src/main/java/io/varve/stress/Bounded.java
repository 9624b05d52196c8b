package io.varve.stress;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a step that must not hang (an open, a full read) on its own daemon thread and waits for it at most a
 * deadline. A step that overruns is reported as a hang; its thread is interrupted and abandoned, as a hung
 * engine call cannot be taken back.
 */
public final class Bounded {

    /** The step overran its deadline. */
    public static final class HangException extends Exception {
        public HangException(String what, Duration limit) {
            super(what + " did not finish within " + limit.toSeconds() + " s");
        }
    }

    private Bounded() {
    }

    /** The step's result; its exception unwrapped (checked ones as they were thrown). */
    public static <T> T call(String what, Duration limit, Callable<T> step) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().daemon().name("bounded-" + what).unstarted(() -> {
            try {
                result.complete(step.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        thread.start();
        try {
            return result.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            thread.interrupt();
            throw new HangException(what, limit);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}

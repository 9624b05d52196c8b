package io.varve.server.scripting;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

/**
 * Watches the running script from inside the interpreter, the way Redis's count hook does: LuaJ calls
 * {@link #onInstruction} before every Lua instruction when a debug library is installed, and every
 * {@link #CHECK_EVERY} instructions this looks at the clock and at the kill request. So no thread watches a
 * script, and a script that never calls back into Java (a {@code while true do end}) is still seen.
 *
 * <p>Threads: the script's own thread runs the hooks; {@link #requestKill} comes from another client's
 * thread, and the busy mark is read by every other client's command, hence volatile fields. A kill is an
 * {@link Error}, not a {@code LuaError}, so a script's {@code pcall} cannot swallow it.
 *
 * <p>Only the count hook is kept: the call and return hooks of LuaJ's own debug library (which keep a call
 * stack for {@code debug.getinfo}) are skipped, since scripts get no {@code debug} library.
 */
final class ScriptBudget extends DebugLib {

    /** Instructions between two looks at the clock: a fraction of a millisecond of interpreted Lua. */
    static final int CHECK_EVERY = 10_000;

    /** Thrown through the script when SCRIPT KILL or FUNCTION KILL stops it. */
    static final class Killed extends Error {
        Killed() {
            super("killed", null, false, false);
        }
    }

    /** Thrown through a library's code that ran past its load timeout. */
    static final class TimedOut extends Error {
        TimedOut() {
            super("timed out", null, false, false);
        }
    }

    private int countdown = CHECK_EVERY;
    private long startedNanos;
    private long busyAfterNanos;
    private volatile boolean running;
    private volatile boolean busy;
    private volatile boolean killRequested;
    /** Stop, rather than turn busy, at the threshold (a library load's timeout). */
    private boolean stopWhenBusy;

    /** A script starts: it becomes busy once it has run longer than {@code busyAfterMillis}. */
    void start(long busyAfterMillis, boolean stopWhenBusy) {
        this.stopWhenBusy = stopWhenBusy;
        startedNanos = System.nanoTime();
        busyAfterNanos = busyAfterMillis * 1_000_000L;
        countdown = CHECK_EVERY;
        killRequested = false;
        busy = busyAfterMillis <= 0;
        running = true;
    }

    void stop() {
        running = false;
        busy = false;
        killRequested = false;
    }

    boolean running() {
        return running;
    }

    /** The running script has passed the busy threshold: other clients get BUSY. */
    boolean busy() {
        return busy;
    }

    long runningMillis() {
        return running ? (System.nanoTime() - startedNanos) / 1_000_000L : 0;
    }

    /** Asks the running script to stop at its next check. */
    void requestKill() {
        killRequested = true;
    }

    @Override
    public void onInstruction(int pc, Varargs v, int top) {
        if (--countdown > 0) {
            return;
        }
        countdown = CHECK_EVERY;
        check();
    }

    /** Also called from the library functions that can run long without Lua instructions. */
    void check() {
        if (killRequested) {
            throw new Killed();
        }
        if (!busy && System.nanoTime() - startedNanos > busyAfterNanos) {
            if (stopWhenBusy) {
                throw new TimedOut();
            }
            busy = true;
        }
    }

    @Override
    public void onCall(LuaFunction f) {
    }

    @Override
    public void onCall(LuaClosure c, Varargs varargs, org.luaj.vm2.LuaValue[] stack) {
    }

    @Override
    public void onReturn() {
    }

    @Override
    public String traceback(int level) {
        return "";
    }
}

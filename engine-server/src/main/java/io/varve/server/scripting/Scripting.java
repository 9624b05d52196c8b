package io.varve.server.scripting;

/**
 * The server's scripting: one {@link LuaRuntime}, the EVAL script cache and the function libraries, and
 * what the rest of the server may ask while a script runs (is it busy, stop it). The caller runs scripts
 * and changes the libraries holding the command gate's exclusive side; {@link #busy}, {@link #running}
 * and {@link #requestKill} are safe from any thread.
 */
public final class Scripting {

    private final LuaRuntime runtime = new LuaRuntime();
    private final EvalScripts scripts = new EvalScripts(runtime);
    private final FunctionLibraries functions = new FunctionLibraries(runtime);
    private volatile ScriptRun running;

    /**
     * Builds an interpreter and compiles and runs a trivial chunk in it, then drops it: the classes the first
     * script needs are then loaded before it comes. Cold, that takes hundreds of milliseconds, during which
     * the first script is not yet running, so a SCRIPT KILL sent after it would answer NOTBUSY; Redis sets up
     * its Lua at start-up. Safe from any thread: the interpreter built here is nobody else's.
     */
    public static void warmUp() {
        LuaRuntime runtime = new LuaRuntime();
        runtime.compile("return 1".getBytes(java.nio.charset.StandardCharsets.US_ASCII), "warm-up", false, "ERR ")
                .call();
    }

    public EvalScripts scripts() {
        return scripts;
    }

    public FunctionLibraries functions() {
        return functions;
    }

    /** The script or function running now, or null. */
    public ScriptRun running() {
        return running;
    }

    /** Marks {@code run} as the one running (null: none), for SCRIPT KILL and FUNCTION STATS. */
    public void running(ScriptRun run) {
        this.running = run;
    }

    /** A script has run past the busy threshold: commands without allow_busy get {@link #busyError}. */
    public boolean busy() {
        return running != null && runtime.budget().busy();
    }

    public long runningMillis() {
        return runtime.budget().runningMillis();
    }

    public String busyError() {
        ScriptRun run = running;
        return "BUSY Redis is busy running a script. You can only call "
                + (run != null && run.function() ? "FUNCTION" : "SCRIPT") + " KILL or SHUTDOWN NOSAVE.";
    }

    /** Asks the running script to stop at its next instruction check. */
    public void requestKill() {
        runtime.budget().requestKill();
    }
}

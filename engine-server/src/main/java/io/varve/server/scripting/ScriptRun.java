package io.varve.server.scripting;

/**
 * One run of a script or function: what it is called in error replies, whether it may write, where its
 * commands go, and the protocol it chose for their replies ({@code redis.setresp}). The run's thread changes
 * it; SCRIPT KILL reads {@link #wrote()} from another thread, hence volatile.
 */
public final class ScriptRun {

    private final String name;
    private final boolean function;
    private final boolean readOnly;
    private final ScriptHost host;
    private final long busyAfterMillis;
    private final boolean libraryLoad;
    private int protocol = 2;
    private volatile boolean wrote;

    /**
     * @param name            the script's SHA1 or the function's name, as error replies name it
     * @param function        an FCALL (else an EVAL)
     * @param readOnly        EVAL_RO, FCALL_RO or a no-writes flag: write commands are refused
     * @param busyAfterMillis after this long the script is busy (busy-reply-threshold)
     */
    public ScriptRun(String name, boolean function, boolean readOnly, ScriptHost host, long busyAfterMillis) {
        this(name, function, readOnly, host, busyAfterMillis, false);
    }

    private ScriptRun(String name, boolean function, boolean readOnly, ScriptHost host, long busyAfterMillis,
                      boolean libraryLoad) {
        this.libraryLoad = libraryLoad;
        this.name = name;
        this.function = function;
        this.readOnly = readOnly;
        this.host = host;
        this.busyAfterMillis = busyAfterMillis;
    }

    /** A library's code running at FUNCTION LOAD: it runs no command and is stopped after {@code timeoutMillis}. */
    static ScriptRun libraryLoad(String library, long timeoutMillis) {
        return new ScriptRun(library, true, true, (args, protocol) -> {
            throw new IllegalStateException("no command runs while a library loads");
        }, timeoutMillis, true);
    }

    /** A library load, which its budget stops once it is busy instead of letting others see BUSY. */
    boolean libraryLoad() {
        return libraryLoad;
    }

    /** The command that started this run, name first. */
    public byte[][] command() {
        return host.invokingCommand();
    }

    public String name() {
        return name;
    }

    public boolean function() {
        return function;
    }

    public boolean readOnly() {
        return readOnly;
    }

    ScriptHost host() {
        return host;
    }

    long busyAfterMillis() {
        return busyAfterMillis;
    }

    String source() {
        return function ? "@user_function" : "@user_script";
    }

    int protocol() {
        return protocol;
    }

    void protocol(int version) {
        this.protocol = version;
    }

    /** A command of the script wrote: SCRIPT KILL may no longer stop it. */
    public void markWrote() {
        wrote = true;
    }

    public boolean wrote() {
        return wrote;
    }
}

package io.varve.server.scripting;

/**
 * What a running script asks of the server: to run a command ({@code redis.call}, {@code redis.pcall}).
 * The server implements it in its command layer, where it checks what a script may run (known command,
 * arity, not a {@code noscript} command, no write from a read-only script) and runs it like any command, in
 * the script's exclusive hold.
 */
public interface ScriptHost {

    /**
     * Runs {@code args} (name first) and returns its whole reply as RESP bytes in {@code protocol} (2 or 3);
     * a refusal comes back as an error reply, as the command's own errors do.
     */
    byte[] call(byte[][] args, int protocol);

    /**
     * {@code redis.acl_check_cmd}: whether the script's user may run {@code args} (name first), or null when
     * no such command exists. A server without users allows everything.
     */
    default Boolean aclAllows(byte[][] args) {
        return Boolean.TRUE;
    }

    /** The command that started the script (FCALL and its arguments), as FUNCTION STATS shows it. */
    default byte[][] invokingCommand() {
        return new byte[0][];
    }
}

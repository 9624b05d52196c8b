package io.varve.server.resp;

/**
 * An error reply, thrown wherever a command discovers it must fail; the dispatcher catches it and writes its
 * message as a RESP error. The message is the full reply text including the error code ({@code ERR},
 * {@code WRONGTYPE}, ...), because client libraries map replies to exceptions by those exact words.
 * Stack traces are not filled in: these are ordinary control flow, not bugs.
 */
public final class RedisError extends RuntimeException {

    public static final String WRONG_TYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    public static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    public static final String NOT_FLOAT = "ERR value is not a valid float";
    public static final String SYNTAX = "ERR syntax error";
    public static final String NO_SUCH_KEY = "ERR no such key";
    public static final String NOAUTH = "NOAUTH Authentication required.";
    public static final String OVERFLOW = "ERR increment or decrement would overflow";
    public static final String NAN_SCORE = "ERR resulting score is not a number (NaN)";
    public static final String STRING_TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    public RedisError(String replyText) {
        super(replyText, null, false, false);
    }

    public static RedisError wrongType() {
        return new RedisError(WRONG_TYPE);
    }

    public static RedisError notInteger() {
        return new RedisError(NOT_INTEGER);
    }

    public static RedisError syntax() {
        return new RedisError(SYNTAX);
    }

    public static RedisError wrongArity(String command) {
        return new RedisError("ERR wrong number of arguments for '" + command + "' command");
    }
}

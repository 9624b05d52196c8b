package io.varve.server.types;

/**
 * A write would make a value larger than the server can store: over proto-max-bulk-len, or too large for
 * one engine entry ({@link RedisStrings#maxValueLength}). Thrown before anything is written or allocated;
 * the dispatcher answers it with Redis's {@code ERR string exceeds maximum allowed size (proto-max-bulk-len)}.
 */
public final class ValueTooLargeException extends RuntimeException {

    public ValueTooLargeException() {
        super("value too large", null, false, false);
    }
}

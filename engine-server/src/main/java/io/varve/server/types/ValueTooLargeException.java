package io.varve.server.types;

import io.varve.core.EntryTooLargeException;

/**
 * A write would make a value larger than the server can store: over proto-max-bulk-len, or too large for
 * one engine entry ({@link RedisStrings#maxValueLength}). Thrown before anything is written or allocated;
 * the dispatcher answers it with Redis's {@code ERR string exceeds maximum allowed size (proto-max-bulk-len)}.
 */
public final class ValueTooLargeException extends RuntimeException {

    public ValueTooLargeException() {
        super("value too large", null, false, false);
    }

    /**
     * Whether {@code failure} is the engine refusing an entry over its size limit: a write the type layer
     * does not size-check itself (a huge hash field, set member or key), answered like this exception.
     */
    public static boolean isEngineRefusal(RuntimeException failure) {
        return failure instanceof EntryTooLargeException;
    }
}

package io.varve.core;

/**
 * A write with {@link WriteOptions#noSlowdown()} found writes stopped or slowed down because background work
 * (flushes, level-0 compactions) has fallen behind. Nothing was written; the same write without
 * {@code noSlowdown} would have waited.
 */
public final class WriteStallException extends RuntimeException {

    WriteStallException(String message) {
        // No stack trace: callers that ask for noSlowdown expect this and retry elsewhere; it says nothing
        // about where it was thrown that the message does not.
        super(message, null, false, false);
    }
}

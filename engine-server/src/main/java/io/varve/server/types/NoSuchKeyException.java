package io.varve.server.types;

/**
 * An operation needs a key that does not exist (RENAME of an absent key). The dispatcher answers it with
 * Redis's {@code ERR no such key}. Ordinary control flow: no stack trace is filled in.
 */
public final class NoSuchKeyException extends RuntimeException {

    public NoSuchKeyException() {
        super("no such key", null, false, false);
    }
}

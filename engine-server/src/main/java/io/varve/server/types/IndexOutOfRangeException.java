package io.varve.server.types;

/**
 * LSET named a position outside the list. Nothing is written; the dispatcher answers Redis's
 * {@code ERR index out of range}. No stack trace: ordinary control flow.
 */
public final class IndexOutOfRangeException extends RuntimeException {

    public IndexOutOfRangeException() {
        super("index out of range", null, false, false);
    }
}

package io.varve.server.store;

/**
 * A key holds another Redis type than the operation needs. The store and type layers throw it; the
 * dispatcher answers it with Redis's {@code WRONGTYPE} error. Like an error reply it is ordinary control
 * flow, so no stack trace is filled in.
 */
public final class WrongTypeException extends RuntimeException {

    public WrongTypeException() {
        super("key holds another type", null, false, false);
    }
}

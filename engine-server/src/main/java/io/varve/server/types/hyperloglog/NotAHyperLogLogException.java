package io.varve.server.types.hyperloglog;

/**
 * A string key that does not hold an HLL (wrong header, unknown encoding, dense of the wrong length); answered
 * with Redis's {@code WRONGTYPE Key is not a valid HyperLogLog string value.}
 */
public final class NotAHyperLogLogException extends RuntimeException {

    public static final String REPLY = "WRONGTYPE Key is not a valid HyperLogLog string value.";

    public NotAHyperLogLogException() {
        super(REPLY, null, false, false);
    }
}

package io.varve.server.types.hyperloglog;

/**
 * A sparse HLL whose opcodes do not cover its registers exactly; answered with Redis's
 * {@code INVALIDOBJ Corrupted HLL object detected}.
 */
public final class CorruptHyperLogLogException extends RuntimeException {

    public static final String REPLY = "INVALIDOBJ Corrupted HLL object detected";

    public CorruptHyperLogLogException() {
        super(REPLY, null, false, false);
    }
}

package io.varve.core.merge;

import java.util.HexFormat;

/**
 * A read needed a merge operator to combine a key's operands and the operator threw (or none is set). Only
 * that read fails: the stored operands stay as they are, and the database stays usable.
 */
public final class MergeFailedException extends RuntimeException {

    private final String operatorName;

    public MergeFailedException(byte[] key, String operatorName, String message, Throwable cause) {
        super("merge of key " + HexFormat.of().formatHex(key) + " with operator " + operatorName + " failed: "
                + message, cause);
        this.operatorName = operatorName;
    }

    /** The name of the operator that failed, or "(none)" when the family has no operator. */
    public String operatorName() {
        return operatorName;
    }
}

package io.varve.core.base;

/**
 * What an internal entry records about its key. The code is stored in the low byte of the entry's trailer
 * (see {@link InternalKey}) and in WAL batches, so codes never change meaning.
 */
public enum ValueKind {
    /** A tombstone: the key was deleted at this sequence. */
    DELETE(0),
    /** A value was written at this sequence. */
    PUT(1),
    /**
     * An operand for the column family's merge operator, applied to whatever the key holds below it. Code 2 is
     * left to range deletions.
     */
    MERGE(3);

    /** The largest code in use; seeks use it so that every kind at a sequence sorts after the seek key. */
    public static final int MAX_CODE = 3;

    private final int code;

    ValueKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static ValueKind fromCode(int code) {
        return switch (code) {
            case 0 -> DELETE;
            case 1 -> PUT;
            case 3 -> MERGE;
            default -> throw new IllegalArgumentException("unknown value kind code " + code);
        };
    }

    /** Like {@link #fromCode} but null for an unknown code, so decoders can report corruption themselves. */
    public static ValueKind fromCodeOrNull(int code) {
        return switch (code) {
            case 0 -> DELETE;
            case 1 -> PUT;
            case 3 -> MERGE;
            default -> null;
        };
    }
}

package io.varve.core.base;

/**
 * What an internal entry records about its key. The code is stored in the low byte of the entry's trailer
 * (see {@link InternalKey}) and in WAL batches, so codes never change meaning.
 */
public enum ValueKind {
    /** A tombstone: the key was deleted at this sequence. */
    DELETE(0),
    /** A value was written at this sequence. */
    PUT(1);

    /** The largest code in use; seeks use it so that every kind at a sequence sorts after the seek key. */
    public static final int MAX_CODE = 1;

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
            default -> throw new IllegalArgumentException("unknown value kind code " + code);
        };
    }

    /** Like {@link #fromCode} but null for an unknown code, so decoders can report corruption themselves. */
    public static ValueKind fromCodeOrNull(int code) {
        return code == 0 ? DELETE : code == 1 ? PUT : null;
    }
}

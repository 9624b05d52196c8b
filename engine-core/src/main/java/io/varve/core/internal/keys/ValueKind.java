package io.varve.core.internal.keys;

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
     * A range deletion: only in write batches, where the record's key is the range's inclusive begin and its
     * value the exclusive end. Memtables and tables keep range tombstones apart from point entries, so this
     * code never appears in an internal key's trailer.
     */
    RANGE_DELETE(2),
    /**
     * An operand for the column family's merge operator, applied to whatever the key holds below it: a point
     * entry like PUT and DELETE.
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
            case 2 -> RANGE_DELETE;
            case 3 -> MERGE;
            default -> throw new IllegalArgumentException("unknown value kind code " + code);
        };
    }

    /** The kind of a point entry (in a memtable's skiplist or a table's blocks); null for any other code. */
    public static ValueKind pointKindOrNull(int code) {
        return switch (code) {
            case 0 -> DELETE;
            case 1 -> PUT;
            case 3 -> MERGE;
            default -> null;
        };
    }

    /** Like {@link #fromCode} but null for an unknown code, so decoders can report corruption themselves. */
    public static ValueKind fromCodeOrNull(int code) {
        return switch (code) {
            case 0 -> DELETE;
            case 1 -> PUT;
            case 2 -> RANGE_DELETE;
            case 3 -> MERGE;
            default -> null;
        };
    }
}

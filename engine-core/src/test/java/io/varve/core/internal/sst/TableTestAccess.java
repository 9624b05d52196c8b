package io.varve.core.internal.sst;

/** Lets tests outside this package locate a table's data blocks. */
public final class TableTestAccess {

    private TableTestAccess() {
    }

    public static long dataBlockOffset(TableReader reader, int block) {
        return reader.dataBlockOffset(block);
    }
}

package io.varve.raftlog.index;

import io.varve.raftlog.file.FileId;

/**
 * Where a batch lives, packed into one long so the index can keep it in a {@code long[]}: the file id
 * ({@link FileId}, under 2^28) in the high 28 bits and the batch's byte position in the file in the low 36
 * bits (files up to 64 GiB). Zero is never a real location (sequence numbers start at 1), so it marks a
 * placeholder: an index slot recovery has not filled (yet).
 */
public final class Location {
    public static final int POSITION_BITS = 64 - FileId.BITS;
    public static final long MAX_POSITION = (1L << POSITION_BITS) - 1;
    public static final long PLACEHOLDER = 0;

    private Location() {
    }

    public static long of(long fileId, long position) {
        if (position < 0 || position > MAX_POSITION) {
            throw new IllegalArgumentException("position " + position + " does not fit " + POSITION_BITS + " bits");
        }
        return fileId << POSITION_BITS | position;
    }

    public static long fileId(long location) {
        return location >>> POSITION_BITS;
    }

    public static long position(long location) {
        return location & MAX_POSITION;
    }
}

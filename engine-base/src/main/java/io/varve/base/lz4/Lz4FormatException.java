package io.varve.base.lz4;

/**
 * LZ4 block data that does not decode to the length it should: damaged or not LZ4 at all. Carries the
 * position, relative to the start of the compressed block, where decoding stopped. Thrown only for bad
 * input; misuse of the decoder (ranges outside the segments) is an {@link IllegalArgumentException}.
 */
public final class Lz4FormatException extends Exception {

    private static final long serialVersionUID = 1L;

    private final long position;

    Lz4FormatException(String message, long position) {
        super(message + " at compressed byte " + position, null, false, false);
        this.position = position;
    }

    /** Offset into the compressed block at which the problem was found. */
    public long position() {
        return position;
    }
}

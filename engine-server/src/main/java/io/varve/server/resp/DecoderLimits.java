package io.varve.server.resp;

/**
 * What one connection's decoder accepts. Before authentication the limits are tiny (Redis's own: 10
 * arguments of 16 KiB at most), so an unauthenticated peer cannot make the server buffer much; after it,
 * the configured bulk length and query buffer caps apply.
 *
 * @param maxBulkLength        largest single argument after authentication (proto-max-bulk-len)
 * @param queryBufferLimit     most bytes one connection may have buffered for a command in progress
 *                             (client-query-buffer-limit)
 * @param maxInlineLength      longest inline (telnet-style) command line
 * @param preAuthMaxArguments  most arguments in one command before authentication
 * @param preAuthMaxBulkLength largest argument before authentication
 */
public record DecoderLimits(long maxBulkLength, long queryBufferLimit, int maxInlineLength,
                            int preAuthMaxArguments, int preAuthMaxBulkLength) {

    public static final int DEFAULT_INLINE = 64 << 10;
    public static final int PRE_AUTH_ARGUMENTS = 10;
    public static final int PRE_AUTH_BULK = 16 << 10;
    /** Redis caps a multibulk count at INT_MAX; we also never pre-size an array from it. */
    public static final long MAX_MULTIBULK = Integer.MAX_VALUE;

    /**
     * Heap bytes an argument costs beyond its payload: the array's object header and the two references that
     * hold it while the command is assembled (the argument list, then the request's array).
     */
    public static final int ARGUMENT_OVERHEAD = 32;

    /** What one decoded argument of {@code payloadLength} bytes costs on the heap, as charged to the query buffer. */
    public static long argumentCost(long payloadLength) {
        return payloadLength + ARGUMENT_OVERHEAD;
    }

    /**
     * The largest multibulk count accepted: one whose arguments fit the query buffer limit even if every one
     * is empty, and never more than Redis's own cap.
     */
    public long maxArguments() {
        return Math.min(MAX_MULTIBULK, queryBufferLimit / ARGUMENT_OVERHEAD);
    }

    public DecoderLimits {
        if (maxBulkLength < 1 || queryBufferLimit < 1 || maxInlineLength < 1 || preAuthMaxArguments < 1
                || preAuthMaxBulkLength < 1) {
            throw new IllegalArgumentException("decoder limits must be positive");
        }
    }

    public static DecoderLimits of(long maxBulkLength, long queryBufferLimit) {
        return new DecoderLimits(maxBulkLength, queryBufferLimit, DEFAULT_INLINE, PRE_AUTH_ARGUMENTS, PRE_AUTH_BULK);
    }
}

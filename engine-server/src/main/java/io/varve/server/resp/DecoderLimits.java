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
     * Bytes of one reference in a request's argument array: 4 with compressed references (heaps under 32 GB,
     * the JVM's default there), else 8. Read from the running JVM so the charge is what the heap really holds.
     */
    public static final int REFERENCE_BYTES = referenceBytes();
    /** A Java array's object header and length field, before its elements. */
    public static final int ARRAY_HEADER_BYTES = 16;

    /**
     * Heap bytes one argument's payload occupies: its own array, padded to the heap's 8-byte alignment, or
     * nothing for an empty argument, since every empty argument is one shared array.
     */
    public static long payloadCost(long payloadLength) {
        return payloadLength == 0 ? 0 : (ARRAY_HEADER_BYTES + payloadLength + 7) & ~7L;
    }

    /** The array holding a request's arguments, without them: its header and {@code slots} references. */
    public static long argumentArrayCost(long slots) {
        return ARRAY_HEADER_BYTES + slots * REFERENCE_BYTES;
    }

    /**
     * The largest multibulk count accepted: one whose argument array fits the query buffer limit even if
     * every argument is empty, and never more than Redis's own cap.
     */
    public long maxArguments() {
        return Math.min(MAX_MULTIBULK, Math.max(0, queryBufferLimit - ARRAY_HEADER_BYTES) / REFERENCE_BYTES);
    }

    private static int referenceBytes() {
        try {
            var diagnostics = java.lang.management.ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class);
            return Boolean.parseBoolean(diagnostics.getVMOption("UseCompressedOops").getValue()) ? 4 : 8;
        } catch (RuntimeException | LinkageError e) {
            return 8; // a JVM without the option: charge the larger size rather than under-count
        }
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

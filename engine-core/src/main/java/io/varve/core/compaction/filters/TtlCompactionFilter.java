package io.varve.core.compaction.filters;

import io.varve.core.compaction.CompactionFilter;

import java.nio.ByteBuffer;
import java.util.function.LongSupplier;
import java.util.Arrays;

/**
 * Removes values whose expiry time has passed. Values carry their expiry in their first 8 bytes, big-endian
 * milliseconds since the epoch, 0 meaning "never" ({@link #encode}); values shorter than 8 bytes are kept.
 * Readers should treat an expired value as absent too (see {@link #isExpired}): the filter only reclaims
 * the space, and only when compaction reaches the key.
 */
public final class TtlCompactionFilter implements CompactionFilter {

    public static final int EXPIRY_BYTES = 8;

    private final LongSupplier clockMillis;

    /** @param clockMillis the current time in epoch milliseconds (injectable for tests) */
    public TtlCompactionFilter(LongSupplier clockMillis) {
        this.clockMillis = clockMillis;
    }

    public TtlCompactionFilter() {
        this(System::currentTimeMillis);
    }

    /** A value with an expiry: {@code expiresAtMillis} 0 never expires. */
    public static byte[] encode(long expiresAtMillis, byte[] value) {
        return ByteBuffer.allocate(EXPIRY_BYTES + value.length).putLong(expiresAtMillis).put(value).array();
    }

    public static byte[] payload(byte[] stored) {
        return Arrays.copyOfRange(stored, EXPIRY_BYTES, stored.length);
    }

    public static boolean isExpired(byte[] stored, long nowMillis) {
        if (stored.length < EXPIRY_BYTES) {
            return false;
        }
        long expiry = ByteBuffer.wrap(stored, 0, EXPIRY_BYTES).getLong();
        return expiry != 0 && expiry <= nowMillis;
    }

    @Override
    public Decision filter(int level, byte[] key, byte[] value) {
        return isExpired(value, clockMillis.getAsLong()) ? REMOVE : KEEP;
    }
}

package io.varve.kafka.streams.store;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Every binary layout of a versioned store's database: nothing else knows an offset. Three key ranges, told
 * apart by their first byte:
 * <pre>
 * latest value   0x00 | key                                           -> validFrom (8) | value
 * older version  0x01 | segment (8) | key length (4) | key | validFrom (8) -> validTo (8) | kind (1) | value
 * stream time    0x02                                                  -> stream time (8)
 * </pre>
 * In keys, timestamps and segment ids are big-endian with the sign bit flipped, so that their unsigned byte
 * order is their numeric order, negatives included; in values they are plain big-endian. The key length in older versions makes every key's
 * versions of one segment a contiguous range of their own ({@link #versionsPrefix}): without it, the
 * versions of a key could interleave with those of a longer key that starts with it. A version's kind tells
 * a value from a tombstone, which has no value bytes but must be kept as the point where the version before
 * it ends.
 */
final class VersionedLayout {

    static final byte LATEST = 0x00;
    static final byte HISTORY = 0x01;
    static final byte STREAM_TIME = 0x02;

    static final int TAG = 1;
    static final int SEGMENT = Long.BYTES;
    static final int KEY_LENGTH = Integer.BYTES;
    static final int TIMESTAMP = Long.BYTES;
    static final int KIND = 1;

    static final byte KIND_VALUE = 0;
    static final byte KIND_TOMBSTONE = 1;

    /** The first key of the older versions: where range deletions of expired segments start at the earliest. */
    static final byte[] HISTORY_START = {HISTORY};
    /** The end (exclusive) of the older versions. */
    static final byte[] HISTORY_END = {STREAM_TIME};
    static final byte[] STREAM_TIME_KEY = {STREAM_TIME};

    private VersionedLayout() {
    }

    private static long ordered(long value) {
        return value ^ Long.MIN_VALUE;
    }

    static byte[] latestKey(byte[] key) {
        byte[] physical = new byte[TAG + key.length];
        physical[0] = LATEST;
        System.arraycopy(key, 0, physical, TAG, key.length);
        return physical;
    }

    static byte[] latestValue(long validFrom, byte[] value) {
        return ByteBuffer.allocate(TIMESTAMP + value.length).putLong(validFrom).put(value).array();
    }

    static long latestValidFrom(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(0);
    }

    static byte[] latestPayload(byte[] stored) {
        return Arrays.copyOfRange(stored, TIMESTAMP, stored.length);
    }

    /** The first key of segment {@code segmentId}; the next segment's is the end of its range. */
    static byte[] segmentStart(long segmentId) {
        return ByteBuffer.allocate(TAG + SEGMENT).put(HISTORY).putLong(ordered(segmentId)).array();
    }

    /** The common prefix of every version of {@code key} kept in segment {@code segmentId}. */
    static byte[] versionsPrefix(long segmentId, byte[] key) {
        return ByteBuffer.allocate(TAG + SEGMENT + KEY_LENGTH + key.length)
                .put(HISTORY).putLong(ordered(segmentId)).putInt(key.length).put(key).array();
    }

    static byte[] versionKey(byte[] versionsPrefix, long validFrom) {
        return ByteBuffer.allocate(versionsPrefix.length + TIMESTAMP)
                .put(versionsPrefix).putLong(ordered(validFrom)).array();
    }

    /** The segment of the older version or segment start {@code physicalKey}. */
    static long segmentOf(byte[] physicalKey) {
        return ordered(ByteBuffer.wrap(physicalKey).getLong(TAG));
    }

    static long validFromOf(byte[] versionKey) {
        return ordered(ByteBuffer.wrap(versionKey).getLong(versionKey.length - TIMESTAMP));
    }

    static byte[] versionValue(long validTo, byte[] value) {
        if (value == null) {
            return ByteBuffer.allocate(TIMESTAMP + KIND).putLong(validTo).put(KIND_TOMBSTONE).array();
        }
        return ByteBuffer.allocate(TIMESTAMP + KIND + value.length)
                .putLong(validTo).put(KIND_VALUE).put(value).array();
    }

    static long validToOf(byte[] versionValue) {
        return ByteBuffer.wrap(versionValue).getLong(0);
    }

    /** The value of an older version, or null for a tombstone. */
    static byte[] payloadOf(byte[] versionValue) {
        if (versionValue[TIMESTAMP] == KIND_TOMBSTONE) {
            return null;
        }
        return Arrays.copyOfRange(versionValue, TIMESTAMP + KIND, versionValue.length);
    }

    static byte[] streamTimeValue(long streamTime) {
        return ByteBuffer.allocate(TIMESTAMP).putLong(streamTime).array();
    }

    static long streamTimeOf(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(0);
    }
}

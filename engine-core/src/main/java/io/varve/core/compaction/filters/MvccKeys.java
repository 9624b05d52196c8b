package io.varve.core.compaction.filters;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The key and value layout of a TiKV-style MVCC store on two column families:
 * <ul>
 *   <li><b>write</b> family: key = {@code encode(userKey)} + commit timestamp, value = {@link #writeRecord} (the
 *       record's kind and the start timestamp of the transaction that wrote it);</li>
 *   <li><b>values</b> family: key = {@code encode(userKey)} + start timestamp, value = the user value.</li>
 * </ul>
 * User keys use a memcomparable encoding (groups of 8 bytes, each followed by a marker byte telling how many
 * of them are padding), so an encoded key is never a prefix of another and encoded keys sort like the raw ones.
 * Timestamps are stored inverted, big-endian, so a key's versions sort newest first.
 */
public final class MvccKeys {

    /** A committed put: the value lives in the values family under the start timestamp. */
    public static final byte PUT = 'P';
    /** A committed delete. */
    public static final byte DELETE = 'D';
    /** A rolled-back transaction's marker: holds no data. */
    public static final byte ROLLBACK = 'R';
    /** A read lock's record: holds no data. */
    public static final byte LOCK = 'L';

    private static final int GROUP = 8;
    private static final int MARKER = 0xFF;
    private static final int TIMESTAMP_BYTES = 8;

    private MvccKeys() {
    }

    /** The memcomparable form of a user key. */
    public static byte[] encode(byte[] userKey) {
        ByteArrayOutputStream out = new ByteArrayOutputStream((userKey.length / GROUP + 1) * (GROUP + 1));
        for (int i = 0; i <= userKey.length; i += GROUP) {
            int n = Math.min(GROUP, userKey.length - i);
            out.write(userKey, i, n);
            for (int pad = n; pad < GROUP; pad++) {
                out.write(0);
            }
            out.write(MARKER - (GROUP - n));
            if (n < GROUP) {
                break;
            }
        }
        return out.toByteArray();
    }

    /** {@code encode(userKey)} followed by the inverted timestamp. */
    public static byte[] versionedKey(byte[] userKey, long timestamp) {
        byte[] encoded = encode(userKey);
        return ByteBuffer.allocate(encoded.length + TIMESTAMP_BYTES).put(encoded).putLong(~timestamp).array();
    }

    /** The encoded user key part of a versioned key. */
    public static byte[] encodedUserKey(byte[] versionedKey) {
        checkVersioned(versionedKey);
        return Arrays.copyOf(versionedKey, versionedKey.length - TIMESTAMP_BYTES);
    }

    /** The timestamp of a versioned key. */
    public static long timestamp(byte[] versionedKey) {
        checkVersioned(versionedKey);
        return ~ByteBuffer.wrap(versionedKey, versionedKey.length - TIMESTAMP_BYTES, TIMESTAMP_BYTES).getLong();
    }

    /** A versioned key from an already encoded user key. */
    public static byte[] withTimestamp(byte[] encodedUserKey, long timestamp) {
        return ByteBuffer.allocate(encodedUserKey.length + TIMESTAMP_BYTES).put(encodedUserKey).putLong(~timestamp)
                .array();
    }

    /** A write-family value: the record's kind and its transaction's start timestamp. */
    public static byte[] writeRecord(byte kind, long startTimestamp) {
        return ByteBuffer.allocate(1 + TIMESTAMP_BYTES).put(kind).putLong(startTimestamp).array();
    }

    public static byte kind(byte[] writeRecord) {
        if (writeRecord.length != 1 + TIMESTAMP_BYTES) {
            throw new IllegalArgumentException("a write record is 9 bytes, not " + writeRecord.length);
        }
        return writeRecord[0];
    }

    public static long startTimestamp(byte[] writeRecord) {
        kind(writeRecord);
        return ByteBuffer.wrap(writeRecord, 1, TIMESTAMP_BYTES).getLong();
    }

    private static void checkVersioned(byte[] key) {
        if (key.length < GROUP + 1 + TIMESTAMP_BYTES) {
            throw new IllegalArgumentException("not a versioned MVCC key: " + key.length + " bytes");
        }
    }
}

package io.varve.server.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How the Redis keyspace is laid out on Varve's ordered byte keys. Every engine key the server writes is
 * built and parsed here and nowhere else. The design follows Kvrocks: one metadata record per Redis key,
 * plus one subkey record per element of a collection, tagged with the collection's version.
 *
 * <pre>
 *  metadata key   +------+---------------------+
 *  (database 0)   | 'm'  | user key (n bytes)  |
 *                 +------+---------------------+
 *  metadata key   +------+-------------+---------------------+
 *  (database d>0) | 'n'  | d (2 bytes) | user key (n bytes)  |
 *                 +------+-------------+---------------------+
 *
 *  metadata value +------+----------------+-------------------------------------------+
 *  (string)       | type | expire-at (8)  | value bytes ...                           |
 *                 +------+----------------+-------------------------------------------+
 *  (hash, set)    | type | expire-at (8)  | version (8)    | size (8)                 |
 *                 +------+----------------+----------------+--------------------------+
 *  (list)         | same 25 bytes as above ...                  | head (8) | tail (8)  |  see ListStore
 *                 +---------------------------------------------+----------+-----------+
 *                 type: low 4 bits = RedisType code, high 4 bits = format (0)
 *                 expire-at: Unix epoch milliseconds, big-endian; 0 = no expiry
 *
 *  subkey         +------+-----------------+---------------------+-------------+---------------+
 *                 | 's'  | key length (4)  | user key (n bytes)  | version (8) | field ...     |
 *                 +------+-----------------+---------------------+-------------+---------------+
 *  subkey value   | field value bytes ...                                                         |
 * </pre>
 *
 * A sorted set keeps two subkeys per member under the same prefix, told apart by a tag byte at the start
 * of the field (see {@link ZSetStore}).
 *
 * <p>All integers are big-endian, so subkeys of one collection version are contiguous and sort by field
 * bytes. The key length in a subkey stops one user key's subkeys from interleaving with those of another key
 * that has it as a prefix. Deleting or overwriting a collection only rewrites its metadata; its subkeys keep
 * the old version, which no reader looks up again, and are garbage that {@link KeyspaceCompactionFilter}
 * drops (a subkey whose key's metadata is gone, expired, or carries another version).
 *
 * <p>Databases (SELECT): only metadata keys carry the database, and only for databases other than 0, whose
 * layout is the one every earlier release wrote. Which database a command works in is a {@link Database}
 * (the number and its metadata-key prefix) that the command's {@link Keyspace} is bound to, so the per-type
 * stores build keys through their keyspace unaware of databases. The number is a <em>physical</em> database:
 * {@link Databases} maps SELECT's logical numbers onto them, which makes SWAPDB a swap of two entries.
 * Subkeys need no database: a collection's version is unique server-wide, so a subkey's (key, version)
 * belongs to exactly one metadata record, in whatever database; MOVE of a collection rewrites only its
 * metadata. Metadata of database d sorts after all of database 0's ('n' follows 'm') and before d+1's.
 */
public final class KeyEncoding {

    /** First byte of metadata keys. */
    public static final byte METADATA_PREFIX = 'm';
    /** First byte of metadata keys of databases other than 0; sorts right after database 0's. */
    public static final byte OTHER_DATABASE_METADATA_PREFIX = METADATA_PREFIX + 1;
    /** First byte of subkeys. */
    public static final byte SUBKEY_PREFIX = 's';
    /** First byte of the server's own bookkeeping keys (never visible to clients). */
    public static final byte INTERNAL_PREFIX = 0;

    static final int TYPE_OFFSET = 0;
    static final int EXPIRE_OFFSET = 1;
    static final int STRING_VALUE_OFFSET = 9;
    static final int VERSION_OFFSET = 9;
    static final int SIZE_OFFSET = 17;
    static final int COLLECTION_HEADER = 25;

    private KeyEncoding() {
    }

    /** Most physical databases: their number must fit the two bytes of a metadata key. */
    public static final int MAX_DATABASES = 1 << 16;

    /** The metadata key of {@code userKey} in database 0. */
    public static byte[] metadataKey(byte[] userKey) {
        return metadataKey(0, userKey);
    }

    /** The metadata key of {@code userKey} in physical database {@code database}. */
    public static byte[] metadataKey(int database, byte[] userKey) {
        if (database == 0) {
            byte[] k = new byte[1 + userKey.length];
            k[0] = METADATA_PREFIX;
            System.arraycopy(userKey, 0, k, 1, userKey.length);
            return k;
        }
        byte[] k = new byte[3 + userKey.length];
        k[0] = OTHER_DATABASE_METADATA_PREFIX;
        k[1] = (byte) (database >>> 8);
        k[2] = (byte) database;
        System.arraycopy(userKey, 0, k, 3, userKey.length);
        return k;
    }

    /** Whether an engine key is a metadata key of any database. */
    public static boolean isMetadataKey(byte[] key) {
        return key.length > 0 && (key[0] == METADATA_PREFIX || (key[0] == OTHER_DATABASE_METADATA_PREFIX && key.length >= 3));
    }

    /** The physical database a metadata key belongs to. */
    public static int databaseOfMetadata(byte[] metadataKey) {
        return metadataKey[0] == METADATA_PREFIX ? 0
                : (Byte.toUnsignedInt(metadataKey[1]) << 8) | Byte.toUnsignedInt(metadataKey[2]);
    }

    /** The user key of a metadata key of any database. */
    public static byte[] userKeyOfMetadata(byte[] metadataKey) {
        int header = metadataKey[0] == METADATA_PREFIX ? 1 : 3;
        return Arrays.copyOfRange(metadataKey, header, metadataKey.length);
    }

    /** The first metadata key of physical database {@code database}, or the end of all if it is past the last. */
    static byte[] databaseStart(int database) {
        if (database == 0) {
            return new byte[] {METADATA_PREFIX};
        }
        if (database >= MAX_DATABASES) {
            return new byte[] {OTHER_DATABASE_METADATA_PREFIX + 1};
        }
        return new byte[] {OTHER_DATABASE_METADATA_PREFIX, (byte) (database >>> 8), (byte) database};
    }

    /** Bounds [start, end) of every database's metadata keys (the expiry sweep visits them all). */
    public static byte[][] allMetadataBounds() {
        return new byte[][] {{METADATA_PREFIX}, {OTHER_DATABASE_METADATA_PREFIX + 1}};
    }

    /** The common prefix of every subkey of {@code userKey} at {@code version}. */
    public static byte[] subkeyPrefix(byte[] userKey, long version) {
        byte[] k = new byte[1 + 4 + userKey.length + 8];
        writeSubkeyPrefix(k, userKey, version);
        return k;
    }

    public static byte[] subkey(byte[] userKey, long version, byte[] field) {
        byte[] k = new byte[1 + 4 + userKey.length + 8 + field.length];
        int prefix = writeSubkeyPrefix(k, userKey, version);
        System.arraycopy(field, 0, k, prefix, field.length);
        return k;
    }

    /** Writes the subkey prefix of {@code userKey} at version {@code version} into {@code k}; its length. */
    private static int writeSubkeyPrefix(byte[] k, byte[] userKey, long version) {
        k[0] = SUBKEY_PREFIX;
        BIG_ENDIAN_INT.set(k, 1, userKey.length);
        System.arraycopy(userKey, 0, k, 1 + 4, userKey.length);
        BIG_ENDIAN_LONG.set(k, 1 + 4 + userKey.length, version);
        return 1 + 4 + userKey.length + 8;
    }

    /** Big-endian reads and writes in byte arrays without a ByteBuffer object per key. */
    static final VarHandle BIG_ENDIAN_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * The length of {@code subkey}'s prefix (prefix byte, key length, key, version), or -1 when it is not a
     * well-formed subkey: wrong first byte, or too short for the key length it declares.
     */
    public static int subkeyPrefixLength(byte[] subkey) {
        if (subkey.length < 1 + 4 + 8 || subkey[0] != SUBKEY_PREFIX) {
            return -1;
        }
        long keyLength = Integer.toUnsignedLong((int) BIG_ENDIAN_INT.get(subkey, 1));
        long prefix = 1 + 4 + keyLength + 8;
        return prefix <= subkey.length ? (int) prefix : -1;
    }

    /** The user key of a subkey whose prefix length is {@code prefixLength} (see {@link #subkeyPrefixLength}). */
    public static byte[] userKeyOfSubkey(byte[] subkey, int prefixLength) {
        return Arrays.copyOfRange(subkey, 1 + 4, prefixLength - 8);
    }

    /** The collection version a subkey carries. */
    public static long versionOfSubkey(byte[] subkey, int prefixLength) {
        return (long) BIG_ENDIAN_LONG.get(subkey, prefixLength - 8);
    }

    /** The field of a subkey whose prefix (for its key and version) has {@code prefixLength} bytes. */
    public static byte[] fieldOfSubkey(byte[] subkey, int prefixLength) {
        return Arrays.copyOfRange(subkey, prefixLength, subkey.length);
    }

    /** The smallest key greater than every key that starts with {@code prefix}; null if none exists. */
    public static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xFF) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return null;
    }

    /** Key of an internal record, e.g. the persisted version floor. */
    public static byte[] internalKey(String name) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        byte[] k = new byte[1 + n.length];
        k[0] = INTERNAL_PREFIX;
        System.arraycopy(n, 0, k, 1, n.length);
        return k;
    }
}

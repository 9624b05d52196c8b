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
 *
 * <p>The slotted layout (a cluster node's keyspace, which has database 0 only) puts the key's hash slot
 * ({@link HashSlot}) right after the first byte of every metadata key and subkey, as Kvrocks does in cluster
 * mode, under first bytes of its own so every engine key says which layout it is in:
 *
 * <pre>
 *  metadata key   +------+-------------+---------------------+
 *  (slotted)      | 'M'  | slot (2)    | user key (n bytes)  |
 *                 +------+-------------+---------------------+
 *  subkey         +------+-------------+-----------------+---------------------+-------------+----------+
 *  (slotted)      | 'S'  | slot (2)    | key length (4)  | user key (n bytes)  | version (8) | field ...|
 *                 +------+-------------+-----------------+---------------------+-------------+----------+
 * </pre>
 *
 * So the metadata of a run of consecutive slots is one key range, and so are its subkeys: a Raft group's
 * slot ranges are a few key ranges, which COUNTKEYSINSLOT, a node's SCAN and a group's snapshot read and
 * which installing a snapshot replaces (docs/cluster.md, "How a group's data is separated"). The plain
 * layout, which standalone and single-group replicated servers use, is unchanged, so their data directories
 * stay readable; the parsing methods here accept both.
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
    /** First byte of metadata keys in the slotted layout. */
    public static final byte SLOTTED_METADATA_PREFIX = 'M';
    /** First byte of subkeys in the slotted layout. */
    public static final byte SLOTTED_SUBKEY_PREFIX = 'S';
    /** Bytes of the slot, big-endian, after the first byte of a slotted key. */
    public static final int SLOT_LENGTH = 2;

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

    /** The metadata key of {@code userKey} in the slotted layout. */
    public static byte[] slottedMetadataKey(byte[] userKey) {
        byte[] k = new byte[1 + SLOT_LENGTH + userKey.length];
        writeSlottedMetadataKey(userKey, k);
        return k;
    }

    /** Writes {@link #slottedMetadataKey} into {@code destination}, which has room for it; its length. */
    static int writeSlottedMetadataKey(byte[] userKey, byte[] destination) {
        int slot = HashSlot.of(userKey);
        destination[0] = SLOTTED_METADATA_PREFIX;
        destination[1] = (byte) (slot >>> 8);
        destination[2] = (byte) slot;
        System.arraycopy(userKey, 0, destination, 1 + SLOT_LENGTH, userKey.length);
        return 1 + SLOT_LENGTH + userKey.length;
    }

    /** Whether an engine key is a metadata key of any database, in either layout. */
    public static boolean isMetadataKey(byte[] key) {
        return key.length > 0 && (key[0] == METADATA_PREFIX
                || ((key[0] == OTHER_DATABASE_METADATA_PREFIX || key[0] == SLOTTED_METADATA_PREFIX) && key.length >= 3));
    }

    /** The physical database a metadata key belongs to (the slotted layout has database 0 only). */
    public static int databaseOfMetadata(byte[] metadataKey) {
        return metadataKey[0] != OTHER_DATABASE_METADATA_PREFIX ? 0
                : (Byte.toUnsignedInt(metadataKey[1]) << 8) | Byte.toUnsignedInt(metadataKey[2]);
    }

    /** The user key of a metadata key of any database, in either layout. */
    public static byte[] userKeyOfMetadata(byte[] metadataKey) {
        int header = metadataKey[0] == METADATA_PREFIX ? 1 : 3;
        return Arrays.copyOfRange(metadataKey, header, metadataKey.length);
    }

    /**
     * The hash slot a slotted metadata key or subkey carries; -1 for any other engine key (the plain layout's
     * keys, whose slot is their user key's, and internal keys, which have none).
     */
    public static int slotOf(byte[] engineKey) {
        if (engineKey.length < 1 + SLOT_LENGTH
                || (engineKey[0] != SLOTTED_METADATA_PREFIX && engineKey[0] != SLOTTED_SUBKEY_PREFIX)) {
            return -1;
        }
        return (Byte.toUnsignedInt(engineKey[1]) << 8) | Byte.toUnsignedInt(engineKey[2]);
    }

    /**
     * The first slotted metadata key of {@code slot}; for {@link HashSlot#SLOTS}, the end of them all. The
     * metadata keys of slots {@code a..b} are {@code [slotMetadataStart(a), slotMetadataStart(b + 1))}.
     */
    public static byte[] slotMetadataStart(int slot) {
        return slotStart(SLOTTED_METADATA_PREFIX, slot);
    }

    /** The first slotted subkey of {@code slot}, as {@link #slotMetadataStart} for subkeys. */
    public static byte[] slotSubkeyStart(int slot) {
        return slotStart(SLOTTED_SUBKEY_PREFIX, slot);
    }

    private static byte[] slotStart(byte prefix, int slot) {
        if (slot < 0 || slot > HashSlot.SLOTS) {
            throw new IllegalArgumentException("no slot " + slot);
        }
        return slot == HashSlot.SLOTS ? new byte[] {(byte) (prefix + 1)}
                : new byte[] {prefix, (byte) (slot >>> 8), (byte) slot};
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

    /**
     * Bounds [start, end) of every database's metadata keys in one layout (the expiry sweep visits them
     * all): the plain layout's databases, or the slotted layout's one.
     */
    public static byte[][] allMetadataBounds(boolean slotted) {
        return slotted ? new byte[][] {{SLOTTED_METADATA_PREFIX}, {SLOTTED_METADATA_PREFIX + 1}}
                : new byte[][] {{METADATA_PREFIX}, {OTHER_DATABASE_METADATA_PREFIX + 1}};
    }

    /** The common prefix of every subkey of {@code userKey} at {@code version} (plain layout). */
    public static byte[] subkeyPrefix(byte[] userKey, long version) {
        return subkey(false, userKey, version, EMPTY);
    }

    /** A subkey of {@code userKey} at {@code version} (plain layout). */
    public static byte[] subkey(byte[] userKey, long version, byte[] field) {
        return subkey(false, userKey, version, field);
    }

    /** A subkey of {@code userKey} at {@code version} in the slotted layout, or the plain one. */
    public static byte[] subkey(boolean slotted, byte[] userKey, long version, byte[] field) {
        int header = slotted ? 1 + SLOT_LENGTH : 1;
        byte[] k = new byte[header + 4 + userKey.length + 8 + field.length];
        if (slotted) {
            int slot = HashSlot.of(userKey);
            k[0] = SLOTTED_SUBKEY_PREFIX;
            k[1] = (byte) (slot >>> 8);
            k[2] = (byte) slot;
        } else {
            k[0] = SUBKEY_PREFIX;
        }
        BIG_ENDIAN_INT.set(k, header, userKey.length);
        System.arraycopy(userKey, 0, k, header + 4, userKey.length);
        BIG_ENDIAN_LONG.set(k, header + 4 + userKey.length, version);
        System.arraycopy(field, 0, k, header + 4 + userKey.length + 8, field.length);
        return k;
    }

    private static final byte[] EMPTY = new byte[0];

    /** Big-endian reads and writes in byte arrays without a ByteBuffer object per key. */
    static final VarHandle BIG_ENDIAN_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * The length of {@code subkey}'s prefix (first byte, slot in the slotted layout, key length, key,
     * version), or -1 when it is not a well-formed subkey of either layout: wrong first byte, or too short for
     * the key length it declares.
     */
    public static int subkeyPrefixLength(byte[] subkey) {
        int header = subkeyHeader(subkey);
        if (header < 0 || subkey.length < header + 4 + 8) {
            return -1;
        }
        long keyLength = Integer.toUnsignedLong((int) BIG_ENDIAN_INT.get(subkey, header));
        long prefix = header + 4 + keyLength + 8;
        return prefix <= subkey.length ? (int) prefix : -1;
    }

    /** Bytes before a subkey's key length: 1, or 3 in the slotted layout; -1 for a key that is no subkey. */
    private static int subkeyHeader(byte[] key) {
        if (key.length == 0) {
            return -1;
        }
        return key[0] == SUBKEY_PREFIX ? 1 : key[0] == SLOTTED_SUBKEY_PREFIX ? 1 + SLOT_LENGTH : -1;
    }

    /** Whether an engine key starts as a subkey of either layout does (well formed or not). */
    public static boolean looksLikeSubkey(byte[] key) {
        return subkeyHeader(key) > 0;
    }

    /** The user key of a subkey whose prefix length is {@code prefixLength} (see {@link #subkeyPrefixLength}). */
    public static byte[] userKeyOfSubkey(byte[] subkey, int prefixLength) {
        return Arrays.copyOfRange(subkey, subkeyHeader(subkey) + 4, prefixLength - 8);
    }

    /**
     * The metadata key that owns a well-formed subkey's collection, in database {@code database} of the
     * subkey's layout (slotted subkeys belong to database 0 only).
     */
    public static byte[] metadataKeyOfSubkey(byte[] subkey, int prefixLength, int database) {
        byte[] userKey = userKeyOfSubkey(subkey, prefixLength);
        if (subkey[0] != SLOTTED_SUBKEY_PREFIX) {
            return metadataKey(database, userKey);
        }
        byte[] k = new byte[1 + SLOT_LENGTH + userKey.length];
        k[0] = SLOTTED_METADATA_PREFIX;
        k[1] = subkey[1];
        k[2] = subkey[2];
        System.arraycopy(userKey, 0, k, 1 + SLOT_LENGTH, userKey.length);
        return k;
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

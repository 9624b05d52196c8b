package io.varve.server.store;

/**
 * One physical database as the keys of its metadata records see it: its number, its layout and the prefix
 * those keys start with ({@link KeyEncoding}: {@code 'm'} for database 0, {@code 'n'} and two bytes of the
 * number for the others; {@code 'M'} and the key's slot in the slotted layout of a cluster node, which has
 * database 0 only). Its subkeys are built here too: they carry no database, but in the slotted layout they
 * carry the slot. A {@link Keyspace} is bound to one of these ({@link Keyspace#in}), and so is everything
 * built over that keyspace, which is how a command reaches the database its connection selected: passed
 * along explicitly, never looked up from the thread. Which physical database a logical number (SELECT's)
 * names is {@link Databases}' business.
 *
 * <p>Immutable; one instance per physical number and layout ({@link #of}, {@link #SLOTTED}).
 */
public final class Database {

    /** Database 0, whose metadata keys are a one-byte prefix and the user key. */
    public static final Database ZERO = new Database(0, false);
    /** Database 0 of a cluster node: every metadata key and subkey carries its key's hash slot. */
    public static final Database SLOTTED = new Database(0, true);

    private final int physical;
    private final boolean slotted;
    private final byte[] prefix;

    private Database(int physical, boolean slotted) {
        if (physical < 0 || physical >= KeyEncoding.MAX_DATABASES) {
            throw new IllegalArgumentException("no physical database " + physical);
        }
        this.physical = physical;
        this.slotted = slotted;
        this.prefix = slotted ? new byte[] {KeyEncoding.SLOTTED_METADATA_PREFIX, 0, 0}
                : physical == 0 ? new byte[] {KeyEncoding.METADATA_PREFIX}
                : new byte[] {KeyEncoding.OTHER_DATABASE_METADATA_PREFIX, (byte) (physical >>> 8), (byte) physical};
    }

    /** Physical database {@code physical} (0 .. {@link KeyEncoding#MAX_DATABASES} - 1) of the plain layout. */
    public static Database of(int physical) {
        return physical == 0 ? ZERO : new Database(physical, false);
    }

    /** Whether its keys carry their slot (a cluster node's keyspace). */
    public boolean slotted() {
        return slotted;
    }

    /** The number its metadata keys carry. */
    public int physical() {
        return physical;
    }

    /** The metadata key of {@code userKey} in this database. */
    public byte[] metadataKey(byte[] userKey) {
        if (slotted) {
            return KeyEncoding.slottedMetadataKey(userKey);
        }
        byte[] k = new byte[prefix.length + userKey.length];
        System.arraycopy(prefix, 0, k, 0, prefix.length);
        System.arraycopy(userKey, 0, k, prefix.length, userKey.length);
        return k;
    }

    /**
     * Writes {@link #metadataKey} of {@code userKey} into {@code destination}: its length, or -1, writing
     * nothing, when it does not fit (the event loop's reads reuse one array per thread).
     */
    public int metadataKeyInto(byte[] userKey, byte[] destination) {
        if (prefix.length + userKey.length > destination.length) {
            return -1;
        }
        if (slotted) {
            return KeyEncoding.writeSlottedMetadataKey(userKey, destination);
        }
        System.arraycopy(prefix, 0, destination, 0, prefix.length);
        System.arraycopy(userKey, 0, destination, prefix.length, userKey.length);
        return prefix.length + userKey.length;
    }

    /**
     * The bytes a string's engine entry adds to its value: the metadata key (this prefix and the user key) and
     * the metadata record's header (type and expire-at) in front of the inline value.
     */
    public long stringEntryOverhead(byte[] userKey) {
        return prefix.length + userKey.length + KeyEncoding.STRING_VALUE_OFFSET;
    }

    /** The first metadata key of this database (inclusive lower bound for whole-database scans). */
    public byte[] metadataStart() {
        return slotted ? KeyEncoding.slotMetadataStart(0) : KeyEncoding.databaseStart(physical);
    }

    /** Exclusive upper bound of this database's metadata keys. */
    public byte[] metadataEnd() {
        return slotted ? KeyEncoding.slotMetadataStart(HashSlot.SLOTS) : KeyEncoding.databaseStart(physical + 1);
    }

    /**
     * Bounds {@code [start, end)} of this database's metadata keys whose user key starts with
     * {@code userPrefix}: one range in the plain layout; in the slotted layout one within the prefix's slot
     * when the prefix fixes it (a complete hash tag), else null (such keys lie in every slot).
     */
    public byte[][] metadataPrefixBounds(byte[] userPrefix) {
        if (slotted && HashSlot.ofEveryKeyStartingWith(userPrefix) < 0) {
            return null;
        }
        byte[] start = metadataKey(userPrefix);
        return new byte[][] {start, KeyEncoding.prefixEnd(start)};
    }

    /** The common prefix of every subkey of {@code userKey} at {@code version}. */
    public byte[] subkeyPrefix(byte[] userKey, long version) {
        return KeyEncoding.subkey(slotted, userKey, version, EMPTY);
    }

    /** The subkey of {@code field} of the collection {@code userKey} at {@code version}. */
    public byte[] subkey(byte[] userKey, long version, byte[] field) {
        return KeyEncoding.subkey(slotted, userKey, version, field);
    }

    private static final byte[] EMPTY = new byte[0];

    @Override
    public boolean equals(Object o) {
        return o instanceof Database d && d.physical == physical && d.slotted == slotted;
    }

    @Override
    public int hashCode() {
        return physical;
    }

    @Override
    public String toString() {
        return slotted ? "database 0 (slotted)" : "database " + physical;
    }
}

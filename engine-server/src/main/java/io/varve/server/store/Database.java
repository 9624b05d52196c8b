package io.varve.server.store;

/**
 * One physical database as the keys of its metadata records see it: its number and the prefix those keys
 * start with ({@link KeyEncoding}: {@code 'm'} for database 0, {@code 'n'} and two bytes of the number for
 * the others). A {@link Keyspace} is bound to one of these ({@link Keyspace#in}), and so is everything built
 * over that keyspace, which is how a command reaches the database its connection selected: passed along
 * explicitly, never looked up from the thread. Which physical database a logical number (SELECT's) names is
 * {@link Databases}' business.
 *
 * <p>Immutable; one instance per physical number ({@link #of}).
 */
public final class Database {

    /** Database 0, whose metadata keys are a one-byte prefix and the user key. */
    public static final Database ZERO = new Database(0);

    private final int physical;
    private final byte[] prefix;

    private Database(int physical) {
        if (physical < 0 || physical >= KeyEncoding.MAX_DATABASES) {
            throw new IllegalArgumentException("no physical database " + physical);
        }
        this.physical = physical;
        this.prefix = physical == 0 ? new byte[] {KeyEncoding.METADATA_PREFIX}
                : new byte[] {KeyEncoding.OTHER_DATABASE_METADATA_PREFIX, (byte) (physical >>> 8), (byte) physical};
    }

    /** Physical database {@code physical} (0 .. {@link KeyEncoding#MAX_DATABASES} - 1). */
    public static Database of(int physical) {
        return physical == 0 ? ZERO : new Database(physical);
    }

    /** The number its metadata keys carry. */
    public int physical() {
        return physical;
    }

    /** The metadata key of {@code userKey} in this database. */
    public byte[] metadataKey(byte[] userKey) {
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
        return KeyEncoding.databaseStart(physical);
    }

    /** Exclusive upper bound of this database's metadata keys. */
    public byte[] metadataEnd() {
        return KeyEncoding.databaseStart(physical + 1);
    }

    /** Exclusive upper bound of this database's metadata keys whose user key starts with {@code userPrefix}. */
    public byte[] metadataPrefixEnd(byte[] userPrefix) {
        return KeyEncoding.prefixEnd(metadataKey(userPrefix));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Database d && d.physical == physical;
    }

    @Override
    public int hashCode() {
        return physical;
    }

    @Override
    public String toString() {
        return "database " + physical;
    }
}

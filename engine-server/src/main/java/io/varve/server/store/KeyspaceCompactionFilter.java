package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.compaction.CompactionFilter;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Drops, while compaction rewrites them, the records no Redis client can see any more:
 * <ul>
 *   <li>a <b>metadata</b> record whose expire-at has passed (reads already treat the key as absent);</li>
 *   <li>a <b>subkey</b> (of either layout, {@link KeyEncoding}) whose collection is gone: its key has no metadata, or the metadata has expired,
 *       holds a type without subkeys (the key was overwritten by a string), or carries another version
 *       (the key was deleted and created again).</li>
 * </ul>
 * Internal records, and anything it cannot parse, are kept.
 *
 * <h2>Why removing is safe</h2>
 * <ol>
 *   <li>A collection version, once its key's metadata stops carrying it, never becomes live again:
 *       {@link VersionClock} never issues a version twice, and a write to an absent or expired key always
 *       creates a fresh version. So "not live now" means "never live again", and dropping its subkeys is
 *       final, not premature.</li>
 *   <li>The engine calls the filter only for entries that are committed and newer than every snapshot, and
 *       the metadata lookup reads the latest state, which includes the batch that wrote the subkey (a
 *       collection's subkeys and metadata are always committed in one batch). A subkey is therefore never
 *       judged against metadata older than itself.</li>
 *   <li>A removal becomes a tombstone at the removed entry's own sequence, so a newer write of the same
 *       engine key (a client re-creating an expired key meanwhile) is untouched.</li>
 *   <li>Expiry is judged by the clock it is given. Standalone, that is the clock reads hide expired keys
 *       by, so only keys reads already hide are dropped. A replica is given one that never expires anything
 *       (see {@code ServerStorage.compactionClock}): every removal is then implied by the applied log (a
 *       deleted or rewritten collection), never by a local clock that a lagging log could contradict.
 *       Should the wall clock be set back, an expired key reappears to reads until its metadata is
 *       compacted, possibly without the fields compaction already dropped; Redis's expiry follows its
 *       clock the same way.</li>
 * </ol>
 *
 * <h2>Why reading the database from inside the filter is safe</h2>
 * The engine forbids a filter to call back into the database synchronously because a <em>write</em> could
 * wait (write stalls) for the very compaction that is calling. A point read cannot: it pins a read view
 * without locks, never waits for flushes or compactions, and schedules no work. Kvrocks judges subkeys the
 * same way. If the lookup fails anyway (the database is closing), the subkey is kept for a later compaction.
 *
 * <h2>Cost</h2>
 * A collection's subkeys are adjacent, so each thread remembers the verdict for the last key and version
 * it looked up: one point lookup per collection version met, not per field. A "dead" verdict is reused
 * freely (dead stays dead). A "live" one could go stale (the key may be deleted right after), so it is
 * reused only within what is visibly the same compaction — keys still ascending — and for at most
 * {@value #LIVE_VERDICT_NANOS} ns; even a stale reuse only keeps garbage for a later compaction.
 *
 * <p>Thread-safe: compaction threads share it; its only mutable state is per thread or an adder.
 */
public final class KeyspaceCompactionFilter implements CompactionFilter {

    private final LongSupplier clock;
    private volatile Db db;
    /**
     * Physical databases whose metadata may own a subkey; 0 until the server says. The server can count them
     * only once the database is open (the map of databases is stored in it), and a compaction may run
     * before that: judging by a guess could take a collection of a database beyond it for dead.
     */
    private volatile int physicalDatabases;
    private final LongAdder metadataRemoved = new LongAdder();
    private final LongAdder subkeysRemoved = new LongAdder();
    private final ThreadLocal<Verdict> lastVerdict = new ThreadLocal<>();
    static final long LIVE_VERDICT_NANOS = 100_000_000L;

    /** The last collection (subkey prefix: key and version) one thread judged, and the last subkey it judged. */
    private static final class Verdict {
        final byte[] prefix;
        final boolean dead;
        final long judgedAtNanos;
        byte[] lastSubkey;

        Verdict(byte[] prefix, boolean dead, long judgedAtNanos, byte[] lastSubkey) {
            this.prefix = prefix;
            this.dead = dead;
            this.judgedAtNanos = judgedAtNanos;
            this.lastSubkey = lastSubkey;
        }

        /** The verdict for {@code subkey} if this one may be reused for it, else null. */
        Boolean reuse(byte[] subkey, int prefixLength) {
            if (prefix.length != prefixLength || !Arrays.equals(prefix, 0, prefixLength, subkey, 0, prefixLength)) {
                return null;
            }
            if (dead) {
                return Boolean.TRUE;
            }
            boolean sameCompaction = Arrays.compareUnsigned(subkey, lastSubkey) > 0;
            if (sameCompaction && System.nanoTime() - judgedAtNanos < LIVE_VERDICT_NANOS) {
                lastSubkey = subkey;
                return Boolean.FALSE;
            }
            return null;
        }
    }

    /** @param clock current time in Unix milliseconds: the same clock the keyspace hides expired keys by */
    public KeyspaceCompactionFilter(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * The database whose metadata judges subkeys. The filter must be in the options the database is opened
     * with, so it learns the database afterwards; until then, and until it learns
     * {@link #physicalDatabases}, it keeps every subkey.
     */
    public void attach(Db database) {
        this.db = database;
    }

    /** How many physical databases exist ({@link Databases#physicalCount}). */
    public void physicalDatabases(int count) {
        this.physicalDatabases = count;
    }

    @Override
    public Decision filter(int level, byte[] key, byte[] value) {
        if (key.length == 0) {
            return KEEP;
        }
        if (KeyEncoding.isMetadataKey(key)) {
            long expireAt = expireAt(value);
            if (expireAt != 0 && expireAt <= clock.getAsLong()) {
                metadataRemoved.increment();
                return REMOVE;
            }
            return KEEP;
        }
        if (KeyEncoding.looksLikeSubkey(key) && collectionIsDead(key)) {
            subkeysRemoved.increment();
            return REMOVE;
        }
        return KEEP;
    }

    /** Expired metadata records removed so far (per removal: a compaction that is redone counts again). */
    public long metadataRemoved() {
        return metadataRemoved.sum();
    }

    /** Subkeys of dead collections removed so far. */
    public long subkeysRemoved() {
        return subkeysRemoved.sum();
    }

    private boolean collectionIsDead(byte[] subkey) {
        int prefixLength = KeyEncoding.subkeyPrefixLength(subkey);
        if (prefixLength < 0) {
            return false;
        }
        Verdict last = lastVerdict.get();
        Boolean reused = last == null ? null : last.reuse(subkey, prefixLength);
        if (reused != null) {
            return reused;
        }
        Db database = db;
        int databases = physicalDatabases;
        if (database == null || databases == 0) {
            return false;
        }
        long version = KeyEncoding.versionOfSubkey(subkey, prefixLength);
        boolean dead = true;
        // Subkeys carry no database: the collection lives if any database's metadata of the key has its
        // version. A slotted subkey's collection can only be in the slotted layout's one database.
        int owners = subkey[0] == KeyEncoding.SLOTTED_SUBKEY_PREFIX ? 1 : databases;
        for (int d = 0; d < owners && dead; d++) {
            byte[] meta;
            try {
                meta = database.get(KeyEncoding.metadataKeyOfSubkey(subkey, prefixLength, d));
            } catch (RuntimeException closingOrFailed) {
                return false;
            }
            dead = !isLive(meta, version);
        }
        lastVerdict.set(new Verdict(Arrays.copyOf(subkey, prefixLength), dead, System.nanoTime(), subkey));
        return dead;
    }

    /** Whether {@code meta} is an unexpired collection at {@code version}; unreadable metadata counts as live. */
    private boolean isLive(byte[] meta, long version) {
        if (meta == null) {
            return false;
        }
        if (meta.length < KeyEncoding.STRING_VALUE_OFFSET || (meta[KeyEncoding.TYPE_OFFSET] & 0xF0) != 0) {
            return true; // not ours to judge: a newer format or a damaged record
        }
        int typeCode = meta[KeyEncoding.TYPE_OFFSET] & 0x0F;
        if (typeCode == RedisType.STRING.code()) {
            return false;
        }
        if (typeCode > RedisType.STREAM.code()) {
            return true; // a type this server does not know
        }
        if (meta.length < KeyEncoding.COLLECTION_HEADER) {
            return true;
        }
        ByteBuffer b = ByteBuffer.wrap(meta);
        long expireAt = b.getLong(KeyEncoding.EXPIRE_OFFSET);
        if (expireAt != 0 && expireAt <= clock.getAsLong()) {
            return false;
        }
        return b.getLong(KeyEncoding.VERSION_OFFSET) == version;
    }

    /** The expire-at of a metadata value, or 0 (never) when it is too short or of an unknown format. */
    private static long expireAt(byte[] meta) {
        if (meta.length < KeyEncoding.STRING_VALUE_OFFSET || (meta[KeyEncoding.TYPE_OFFSET] & 0xF0) != 0) {
            return 0;
        }
        return ByteBuffer.wrap(meta).getLong(KeyEncoding.EXPIRE_OFFSET);
    }
}

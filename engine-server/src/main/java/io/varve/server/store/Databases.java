package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The logical databases SELECT numbers (0 .. count-1) and the physical databases their keys are stored under
 * ({@link KeyEncoding}). The map starts as the identity; SWAPDB swaps two entries, so it costs one small
 * synced write whatever the databases hold, and is persisted in an internal record so a restart finds every
 * key where the clients last saw it.
 *
 * <p>Concurrency: the map is an immutable array replaced on each swap; commands read it (through
 * {@link Keyspace#inLogical}) while they hold the command gate's shared side, and SWAPDB runs in its
 * exclusive side, so no command is between a lookup and its last key access during a swap. {@link #swap} is
 * synchronized only against itself.
 */
public final class Databases {

    static final byte[] MAP_KEY = KeyEncoding.internalKey("database-map");

    private final Db db;
    private final int count;
    private volatile int[] physicalOf;
    /** One {@link Database} per physical number, made once. */
    private final Database[] physicalDatabases;

    private Databases(Db db, int count, int[] physicalOf, Database zero) {
        this.db = db;
        this.count = count;
        this.physicalOf = physicalOf;
        this.physicalDatabases = new Database[physicalOf.length];
        for (int p = 0; p < physicalOf.length; p++) {
            physicalDatabases[p] = p == 0 ? zero : Database.of(p);
        }
    }

    /**
     * Reads the persisted map, or starts the identity. A map persisted with more databases than {@code count}
     * is kept whole (the extra databases are unreachable but not lost); a shorter one is extended with the
     * physical numbers it does not use.
     */
    public static Databases open(Db db, int count) {
        return open(db, count, Database.ZERO);
    }

    /**
     * {@link #open(Db, int)} with {@code zero} as physical database 0: {@link Database#SLOTTED} for a cluster
     * node's keyspace, which then has that database only ({@code count} 1).
     */
    public static Databases open(Db db, int count, Database zero) {
        if (count < 1 || count > KeyEncoding.MAX_DATABASES) {
            throw new IllegalArgumentException("databases must be between 1 and " + KeyEncoding.MAX_DATABASES);
        }
        if (zero.slotted() && count != 1) {
            throw new IllegalArgumentException("the slotted layout has one database, not " + count);
        }
        byte[] raw = db.get(MAP_KEY);
        int[] stored = raw == null ? new int[0] : decode(raw);
        int[] map = Arrays.copyOf(stored, Math.max(stored.length, count));
        BitSet used = new BitSet();
        for (int p : stored) {
            used.set(p);
        }
        int next = 0;
        for (int i = stored.length; i < map.length; i++) {
            next = used.nextClearBit(next);
            map[i] = next;
            used.set(next);
        }
        return new Databases(db, count, map, zero);
    }

    /** How many logical databases SELECT accepts. */
    public int count() {
        return count;
    }

    /** How many physical databases may hold keys (at least {@link #count}). */
    public int physicalCount() {
        return physicalOf.length;
    }

    public int physical(int logical) {
        return physicalOf[logical];
    }

    /**
     * The logical database stored under {@code physical}, or -1 when none is (a physical database beyond
     * {@link #count} that a longer persisted map kept).
     */
    public int logical(int physical) {
        int[] map = physicalOf;
        for (int logical = 0; logical < count; logical++) {
            if (map[logical] == physical) {
                return logical;
            }
        }
        return -1;
    }

    /** The physical database {@code logical} names now. */
    public Database database(int logical) {
        return physicalDatabase(physical(logical));
    }

    /** Physical database {@code physical}. */
    public Database physicalDatabase(int physical) {
        return physical < physicalDatabases.length ? physicalDatabases[physical] : Database.of(physical);
    }

    /** SWAPDB: the two logical databases exchange their contents, durably, in O(1). */
    public synchronized void swap(int a, int b) {
        int[] next = physicalOf.clone();
        int t = next[a];
        next[a] = next[b];
        next[b] = t;
        db.write(new WriteBatch().put(MAP_KEY, encode(next)), WriteOptions.SYNC);
        physicalOf = next;
    }

    private static byte[] encode(int[] map) {
        ByteBuffer b = ByteBuffer.allocate(2 * map.length);
        for (int p : map) {
            b.putShort((short) p);
        }
        return b.array();
    }

    private static int[] decode(byte[] raw) {
        if (raw.length % 2 != 0) {
            throw new IllegalStateException("database map record is damaged: " + raw.length + " bytes");
        }
        int[] map = new int[raw.length / 2];
        ByteBuffer b = ByteBuffer.wrap(raw);
        for (int i = 0; i < map.length; i++) {
            map[i] = Short.toUnsignedInt(b.getShort());
        }
        return map;
    }
}

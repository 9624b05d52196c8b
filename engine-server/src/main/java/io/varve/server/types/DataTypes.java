package io.varve.server.types;

import io.varve.server.store.Database;
import io.varve.server.store.Keyspace;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * The Redis types over one {@link Keyspace}: the single way commands reach storage. Each type class owns its
 * storage rules (the key's stripe lock, the metadata lookup and type check, the engine batch, the element
 * count, the commit), so a command only parses its arguments and writes its reply.
 *
 * <p>The types work in the database their keyspace is bound to ({@link Keyspace#database}); {@link #in} gives
 * them over another database. Thread-safe: the type objects hold no per-call state.
 */
public final class DataTypes {

    private final Keyspace keyspace;
    private final LongSupplier maxBulkLength;
    /** The types over each database asked for so far, by physical number; shared by every view. */
    private final ConcurrentMap<Integer, DataTypes> views;

    private final RedisHashes hashes;
    private final RedisSets sets;
    private final RedisStrings strings;
    private final RedisSortedSets sortedSets;
    private final RedisLists lists;
    private final RedisKeys keys;
    private final RedisStreams streams;
    private final RedisHyperLogLogs hyperLogLogs;

    /**
     * @param maxBulkLength the largest string a client may send or create (proto-max-bulk-len), read at
     *                      each use because CONFIG SET may change it
     */
    public DataTypes(Keyspace keyspace, LongSupplier maxBulkLength) {
        this(keyspace, maxBulkLength, new ConcurrentHashMap<>());
        views.put(keyspace.database().physical(), this);
    }

    private DataTypes(Keyspace keyspace, LongSupplier maxBulkLength, ConcurrentMap<Integer, DataTypes> views) {
        this.keyspace = keyspace;
        this.maxBulkLength = maxBulkLength;
        this.views = views;
        this.hashes = new RedisHashes(keyspace);
        this.sets = new RedisSets(keyspace);
        this.strings = new RedisStrings(keyspace, maxBulkLength);
        this.sortedSets = new RedisSortedSets(keyspace);
        this.lists = new RedisLists(keyspace);
        this.keys = new RedisKeys(keyspace);
        this.streams = new RedisStreams(keyspace);
        this.hyperLogLogs = new RedisHyperLogLogs(keyspace, strings,
                () -> io.varve.server.types.hyperloglog.HyperLogLog.DEFAULT_SPARSE_MAX_BYTES);
    }

    /** These types over {@code database} (the same object for the same database). */
    public DataTypes in(Database database) {
        if (database.physical() == keyspace.database().physical()) {
            return this;
        }
        DataTypes found = views.get(database.physical());
        return found != null ? found : views.computeIfAbsent(database.physical(),
                p -> new DataTypes(keyspace.in(database), maxBulkLength, views));
    }

    /** The database these types work in. */
    public Database database() {
        return keyspace.database();
    }

    /** An empty batch for SETs of any databases, committed together (see {@link StagedStringWrites}). */
    public StagedStringWrites stagedStringWrites() {
        return new StagedStringWrites(keyspace);
    }

    public RedisHashes hashes() {
        return hashes;
    }

    public RedisStrings strings() {
        return strings;
    }

    public RedisSets sets() {
        return sets;
    }

    public RedisSortedSets sortedSets() {
        return sortedSets;
    }

    public RedisLists lists() {
        return lists;
    }

    public RedisStreams streams() {
        return streams;
    }

    /** Operations on keys whatever their type. */
    public RedisKeys keys() {
        return keys;
    }

    /** HyperLogLogs (strings in Redis's HLL representation). */
    public RedisHyperLogLogs hyperLogLogs() {
        return hyperLogLogs;
    }
}

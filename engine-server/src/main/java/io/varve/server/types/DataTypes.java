package io.varve.server.types;

import io.varve.server.store.Keyspace;

import java.util.function.LongSupplier;

/**
 * The Redis types over one {@link Keyspace}: the single way commands reach storage. Each type class owns its
 * storage rules (the key's stripe lock, the metadata lookup and type check, the engine batch, the element
 * count, the commit), so a command only parses its arguments and writes its reply.
 */
public final class DataTypes {

    private final RedisHashes hashes;
    private final RedisSets sets;
    private final RedisStrings strings;
    private final RedisSortedSets sortedSets;
    private final RedisLists lists;
    private final RedisKeys keys;
    private final RedisStreams streams;

    /**
     * @param maxBulkLength the largest string a client may send or create (proto-max-bulk-len), read at
     *                      each use because CONFIG SET may change it
     */
    public DataTypes(Keyspace keyspace, LongSupplier maxBulkLength) {
        this.hashes = new RedisHashes(keyspace);
        this.sets = new RedisSets(keyspace);
        this.strings = new RedisStrings(keyspace, maxBulkLength);
        this.sortedSets = new RedisSortedSets(keyspace);
        this.lists = new RedisLists(keyspace);
        this.keys = new RedisKeys(keyspace);
        this.streams = new RedisStreams(keyspace);
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
}

package io.varve.core;

/**
 * A handle on one column family of one open database: a separate key space with its own memtables, tables,
 * compaction and options, sharing the database's write-ahead log so that a {@link WriteBatch} spanning
 * families is atomic. Obtained from {@link Db#createColumnFamily}, {@link Db#columnFamily(String)} or
 * {@link Db#defaultColumnFamily()}; valid only with the database that handed it out. After
 * {@link Db#dropColumnFamily} every use of the handle fails with {@link IllegalArgumentException}.
 */
public final class ColumnFamily {

    private final Object owner;
    private final int id;
    private final String name;

    ColumnFamily(Object owner, int id, String name) {
        this.owner = owner;
        this.id = id;
        this.name = name;
    }

    public String name() {
        return name;
    }

    int id() {
        return id;
    }

    /** The registry that issued this handle: one per database. */
    Object owner() {
        return owner;
    }

    @Override
    public String toString() {
        return "ColumnFamily[" + name + "]";
    }
}

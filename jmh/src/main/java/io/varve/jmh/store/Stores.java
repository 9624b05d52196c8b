package io.varve.jmh.store;

import java.nio.file.Path;

/** Opens the engine named by a benchmark's {@code store} parameter. */
public final class Stores {

    /** The values of every benchmark's {@code store} parameter. */
    public static final String VARVE = "varve";
    public static final String ROCKSDB = "rocksdb";
    public static final String LEVELDB = "leveldb";

    private Stores() {
    }

    public static KvStore open(String name, Path dir, StoreSettings settings) {
        return switch (name) {
            case VARVE -> new VarveStore(dir, settings);
            case ROCKSDB -> new RocksDbStore(dir, settings);
            case LEVELDB -> new LevelDbStore(dir, settings);
            default -> throw new IllegalArgumentException("unknown store '" + name + "': use varve, rocksdb or leveldb");
        };
    }
}

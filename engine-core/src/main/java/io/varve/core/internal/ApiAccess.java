package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Options;
import io.varve.core.ReadOnlyDbException;
import io.varve.core.ReadOptions;
import io.varve.core.SharedBlockCache;
import io.varve.core.Transaction;
import io.varve.core.WriteBatch;
import io.varve.core.WriteBufferManager;
import io.varve.core.WriteOptions;
import io.varve.core.WriteStallException;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.txn.TransactionOptions;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The engine's way to the API classes' non-public parts (constructors of handles and exceptions, a batch's
 * encoding, options only the engine reads), so that those stay out of what an application sees. The API
 * package implements it in one package-private class, which installs itself when it is initialised; the
 * JDK's {@code SharedSecrets} works the same way. {@link #get()} initialises that class first, so the engine
 * never sees a missing bridge whichever class it touches first.
 */
public interface ApiAccess {

    ColumnFamily newColumnFamily(Object owner, int id, String name);

    int familyId(ColumnFamily family);

    /** The database the handle belongs to. */
    Object familyOwner(ColumnFamily family);

    WriteBatchBuilder builder(WriteBatch batch);

    /** The database whose handles the batch used, or null. */
    Object batchOwner(WriteBatch batch);

    /** The families the batch merges into. */
    int[] mergeFamilies(WriteBatch batch);

    /** @throws io.varve.core.EntryTooLargeException if no table could hold the entry */
    void requireStorable(MemorySegment key, MemorySegment value);

    Transaction newTransaction(DbImpl db, WriteOptions writeOptions, TransactionOptions options);

    ColumnFamilyOptions columnFamilyOptions(Options options, String name);

    /** The registry given to {@link Options#withMeterRegistry}, or null; Object so callers link without Micrometer. */
    Object meterRegistry(Options options);

    ReadOnlyDbException readOnly(Path dir, String operation);

    WriteStallException writeStall(String message);

    /** A view of the shared cache for one more database. */
    BlockCache blockCacheView(SharedBlockCache cache);

    WriteBufferBudget writeBufferBudget(WriteBufferManager manager);

    boolean mayBeIncomplete(ReadOptions options);

    /** The lower bound without a defensive copy; the engine only reads it. */
    byte[] lowerBound(ReadOptions options);

    /** The upper bound without a defensive copy; the engine only reads it. */
    byte[] upperBound(ReadOptions options);

    static ApiAccess get() {
        ApiAccess access = Installed.access;
        if (access == null) {
            try {
                Class.forName("io.varve.core.EngineBridge", true, ApiAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("engine-core is incomplete: the API bridge is missing", e);
            }
            access = Installed.access;
        }
        return access;
    }

    /** Called once, by the API package's bridge while it is initialised. */
    static void install(ApiAccess access) {
        Installed.access = access;
    }

    /** Holds the bridge; an interface cannot have a private mutable field. */
    final class Installed {
        private static volatile ApiAccess access;

        private Installed() {
        }
    }
}

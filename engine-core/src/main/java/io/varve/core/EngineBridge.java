package io.varve.core;

import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.ApiAccess;
import io.varve.core.internal.DbImpl;
import io.varve.core.internal.WriteBufferBudget;
import io.varve.core.internal.sst.BlockCache;
import io.varve.core.txn.TransactionOptions;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/** The API package's side of {@link ApiAccess}: installs itself when first initialised. */
final class EngineBridge implements ApiAccess {

    static {
        ApiAccess.install(new EngineBridge());
    }

    private EngineBridge() {
    }

    @Override
    public ColumnFamily newColumnFamily(Object owner, int id, String name) {
        return new ColumnFamily(owner, id, name);
    }

    @Override
    public int familyId(ColumnFamily family) {
        return family.id();
    }

    @Override
    public Object familyOwner(ColumnFamily family) {
        return family.owner();
    }

    @Override
    public WriteBatchBuilder builder(WriteBatch batch) {
        return batch.builder();
    }

    @Override
    public Object batchOwner(WriteBatch batch) {
        return batch.owner();
    }

    @Override
    public int[] mergeFamilies(WriteBatch batch) {
        return batch.mergeFamilies();
    }

    @Override
    public void requireStorable(MemorySegment key, MemorySegment value) {
        WriteBatch.requireStorable(key, value);
    }

    @Override
    public Transaction newTransaction(DbImpl db, WriteOptions writeOptions, TransactionOptions options) {
        return new Transaction(db, writeOptions, options);
    }

    @Override
    public ColumnFamilyOptions columnFamilyOptions(Options options, String name) {
        return options.columnFamilyOptions(name);
    }

    @Override
    public Object meterRegistry(Options options) {
        return options.meterRegistry();
    }

    @Override
    public ReadOnlyDbException readOnly(Path dir, String operation) {
        return new ReadOnlyDbException(dir, operation);
    }

    @Override
    public BlockCache blockCacheView(SharedBlockCache cache) {
        return cache.forDatabase();
    }

    @Override
    public WriteBufferBudget writeBufferBudget(WriteBufferManager manager) {
        return manager.budget();
    }

    @Override
    public WriteStallException writeStall(String message) {
        return new WriteStallException(message);
    }

    @Override
    public boolean mayBeIncomplete(ReadOptions options) {
        return options.mayBeIncomplete();
    }

    @Override
    public byte[] lowerBound(ReadOptions options) {
        return options.lowerBoundUnsafe();
    }

    @Override
    public byte[] upperBound(ReadOptions options) {
        return options.upperBoundUnsafe();
    }
}

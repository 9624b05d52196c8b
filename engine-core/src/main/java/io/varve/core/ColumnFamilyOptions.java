package io.varve.core;

import io.varve.core.compaction.CompactionFilter;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.merge.MergeOperator;
import io.varve.core.sst.TableOptions;

import java.util.Objects;

/**
 * What can differ between column families: memtable size, table format, compaction shape and the
 * compaction filter. Immutable; each {@code with...} returns a changed copy. Not stored on disk: like
 * RocksDB, a family's options are given again at every open ({@link Options#withColumnFamily}); a family
 * opened without them gets {@link #defaults()}, which has no compaction filter, so nothing is ever
 * filtered by accident.
 */
public final class ColumnFamilyOptions {

    private final long writeBufferSize;
    private final TableOptions tableOptions;
    private final CompactionSettings compactionSettings;
    private final CompactionFilter compactionFilter;
    private final MergeOperator mergeOperator;
    private final int maxSuccessiveMerges;

    private ColumnFamilyOptions(long writeBufferSize, TableOptions tableOptions, CompactionSettings compactionSettings,
                                CompactionFilter compactionFilter, MergeOperator mergeOperator,
                                int maxSuccessiveMerges) {
        this.writeBufferSize = writeBufferSize;
        this.tableOptions = tableOptions;
        this.compactionSettings = compactionSettings;
        this.compactionFilter = compactionFilter;
        this.mergeOperator = mergeOperator;
        this.maxSuccessiveMerges = maxSuccessiveMerges;
    }

    /** The database-wide defaults of {@link Options#defaults()}, without a compaction filter. */
    public static ColumnFamilyOptions defaults() {
        return from(Options.defaults());
    }

    /** The family settings {@code options} holds (what the default column family uses). */
    public static ColumnFamilyOptions from(Options options) {
        return new ColumnFamilyOptions(options.writeBufferSize(), options.tableOptions(),
                options.compactionSettings(), options.compactionFilter(), options.mergeOperator(),
                options.maxSuccessiveMerges());
    }

    /** Bytes of writes the family's memtable takes before it is flushed (64 KiB .. 1 GiB). */
    public ColumnFamilyOptions withWriteBufferSize(long bytes) {
        Options.checkWriteBufferSize(bytes);
        return new ColumnFamilyOptions(bytes, tableOptions, compactionSettings, compactionFilter, mergeOperator,
                maxSuccessiveMerges);
    }

    public ColumnFamilyOptions withTableOptions(TableOptions options) {
        return new ColumnFamilyOptions(writeBufferSize, Objects.requireNonNull(options, "tableOptions"),
                compactionSettings, compactionFilter, mergeOperator,
                maxSuccessiveMerges);
    }

    public ColumnFamilyOptions withCompactionSettings(CompactionSettings settings) {
        return new ColumnFamilyOptions(writeBufferSize, tableOptions,
                Objects.requireNonNull(settings, "compactionSettings"), compactionFilter, mergeOperator,
                maxSuccessiveMerges);
    }

    /** The filter compactions of this family apply (null for none). */
    public ColumnFamilyOptions withCompactionFilter(CompactionFilter filter) {
        return new ColumnFamilyOptions(writeBufferSize, tableOptions, compactionSettings, filter, mergeOperator,
                maxSuccessiveMerges);
    }

    /**
     * The operator that resolves {@code merge} writes in this family (null for none: merges are refused). Like
     * the other options it is given again at every open; an operator compatible with the stored operands must
     * be given, or reads of keys with operands fail.
     */
    public ColumnFamilyOptions withMergeOperator(MergeOperator operator) {
        return new ColumnFamilyOptions(writeBufferSize, tableOptions, compactionSettings, compactionFilter, operator,
                maxSuccessiveMerges);
    }

    public MergeOperator mergeOperator() {
        return mergeOperator;
    }

    /**
     * RocksDB's {@code max_successive_merges} (0, the default, turns it off): a merge written when the
     * family's memtable already holds this many operands on top of the key's newest other entry is applied at
     * once to the key's current value and stored as a put, so reads never walk a longer chain of memtable
     * operands. Older snapshots still read the operands below it.
     */
    public ColumnFamilyOptions withMaxSuccessiveMerges(int count) {
        Options.checkMaxSuccessiveMerges(count);
        return new ColumnFamilyOptions(writeBufferSize, tableOptions, compactionSettings, compactionFilter,
                mergeOperator, count);
    }

    public int maxSuccessiveMerges() {
        return maxSuccessiveMerges;
    }

    public long writeBufferSize() {
        return writeBufferSize;
    }

    public TableOptions tableOptions() {
        return tableOptions;
    }

    public CompactionSettings compactionSettings() {
        return compactionSettings;
    }

    public CompactionFilter compactionFilter() {
        return compactionFilter;
    }
}

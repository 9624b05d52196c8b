package io.varve.core;

import io.varve.core.compaction.CompactionFilter;
import io.varve.core.compaction.CompactionSettings;
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

    private ColumnFamilyOptions(long writeBufferSize, TableOptions tableOptions, CompactionSettings compactionSettings,
                                CompactionFilter compactionFilter) {
        this.writeBufferSize = writeBufferSize;
        this.tableOptions = tableOptions;
        this.compactionSettings = compactionSettings;
        this.compactionFilter = compactionFilter;
    }

    /** The database-wide defaults of {@link Options#defaults()}, without a compaction filter. */
    public static ColumnFamilyOptions defaults() {
        return from(Options.defaults());
    }

    /** The family settings {@code options} holds (what the default column family uses). */
    public static ColumnFamilyOptions from(Options options) {
        return new ColumnFamilyOptions(options.writeBufferSize(), options.tableOptions(),
                options.compactionSettings(), options.compactionFilter());
    }

    /** Bytes of writes the family's memtable takes before it is flushed (64 KiB .. 1 GiB). */
    public ColumnFamilyOptions withWriteBufferSize(long bytes) {
        Options.checkWriteBufferSize(bytes);
        return new ColumnFamilyOptions(bytes, tableOptions, compactionSettings, compactionFilter);
    }

    public ColumnFamilyOptions withTableOptions(TableOptions options) {
        return new ColumnFamilyOptions(writeBufferSize, Objects.requireNonNull(options, "tableOptions"),
                compactionSettings, compactionFilter);
    }

    public ColumnFamilyOptions withCompactionSettings(CompactionSettings settings) {
        return new ColumnFamilyOptions(writeBufferSize, tableOptions,
                Objects.requireNonNull(settings, "compactionSettings"), compactionFilter);
    }

    /** The filter compactions of this family apply (null for none). */
    public ColumnFamilyOptions withCompactionFilter(CompactionFilter filter) {
        return new ColumnFamilyOptions(writeBufferSize, tableOptions, compactionSettings, filter);
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

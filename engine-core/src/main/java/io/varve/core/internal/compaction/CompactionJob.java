package io.varve.core.internal.compaction;

import io.varve.core.compaction.CompactionFilter;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.iterator.MergingIterator;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.core.internal.rangedel.RangeTombstone;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.sst.TableWriter;
import io.varve.core.internal.version.LevelIterator;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionEdit;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * Runs one {@link Compaction}: merges its inputs and writes the surviving entries to new tables at the output
 * level, split at {@code targetFileSize} but never inside one user key's versions (a level's tables must not
 * share a user key). Inputs with range tombstones give one output holding the surviving tombstones, whose
 * key range is widened to take them in; split outputs would need clipped tombstones and exclusive bounds.
 *
 * <p>What is dropped, walking each user key's entries newest first:
 * <ul>
 *   <li>an entry shadowed by a newer entry of the same key that even the oldest live snapshot sees — no
 *       reader can reach it any more — unless that newer entry is a merge operand;</li>
 *   <li>a tombstone every snapshot sees, when no deeper level holds the key: there is nothing left for it
 *       to hide;</li>
 *   <li>an entry covered by an input's range tombstone newer than it that even the oldest live snapshot sees;
 *       and such a tombstone itself once no deeper level's table meets its range;</li>
 *   <li>what the compaction filter removes — only for a key's newest entry that no snapshot can see, so a
 *       filter never changes a snapshot's contents. A removal becomes a tombstone unless no deeper level
 *       holds the key.</li>
 * </ul>
 *
 * <p>An operand needs the entries below it down to the key's next put or delete; {@link OperandFolder} then
 * shortens operand chains where no snapshot and no range tombstone over the key separates them.
 */
public final class CompactionJob {

    private final Compaction compaction;
    private final Version version;
    private final FileSystem fs;
    private final LongFunction<Path> tablePath;
    private final LongSupplier fileNumbers;
    private final TableCache tableCache;
    private final TableOptions tableOptions;
    private final long targetFileSize;
    private final long oldestSnapshot;
    private final long newestSnapshot;
    private final CompactionFilter filter;
    private final RateLimiter limiter;
    private final LongAdder bytesWritten;

    private final List<TableMeta> outputs = new ArrayList<>();
    private long entriesDropped;
    private List<RangeTombstone> rangeTombstones = List.of();
    private MergeOperator mergeOperator;
    private LongAdder mergeFailures = new LongAdder();
    private System.Logger log = System.getLogger(CompactionJob.class.getName());
    /** The output being written; a field so that the operand folder's sink can open one. */
    private Output out;

    /**
     * @param oldestSnapshot the oldest sequence a reader may still read at (the visible sequence if no
     *                       snapshot is open)
     * @param newestSnapshot the newest open snapshot's sequence, or -1 when none is open
     */
    public CompactionJob(Compaction compaction, Version version, FileSystem fs, LongFunction<Path> tablePath,
                         LongSupplier fileNumbers, TableCache tableCache, TableOptions tableOptions,
                         long targetFileSize, long oldestSnapshot, long newestSnapshot, CompactionFilter filter,
                         RateLimiter limiter, LongAdder bytesWritten) {
        this.compaction = compaction;
        this.version = version;
        this.fs = fs;
        this.tablePath = tablePath;
        this.fileNumbers = fileNumbers;
        this.tableCache = tableCache;
        this.tableOptions = tableOptions;
        this.targetFileSize = targetFileSize;
        this.oldestSnapshot = oldestSnapshot;
        this.newestSnapshot = newestSnapshot;
        this.filter = filter == null ? null : filter.forCompaction();
        this.limiter = limiter;
        this.bytesWritten = bytesWritten;
    }

    /** Writes the output tables (synced) and returns the edit that swaps them for the inputs. */
    public VersionEdit run() throws IOException {
        List<InternalIterator> children = new ArrayList<>();
        boolean success = false;
        OperandFolder folder = new OperandFolder(mergeOperator, oldestSnapshot, newestSnapshot, mergeFailures, log,
                (key, trailer, value) -> {
                    if (out == null) {
                        out = new Output(fileNumbers.getAsLong());
                    }
                    out.writer.add(key, trailer, value);
                });
        try {
            if (compaction.level() == 0) {
                for (TableMeta t : compaction.inputs()) {
                    children.add(iterator(t));
                }
            } else {
                children.add(new LevelIterator(compaction.inputs(), tableCache));
            }
            if (compaction.outputLevelInputs().length > 0) {
                children.add(new LevelIterator(compaction.outputLevelInputs(), tableCache));
            }
            FragmentedTombstones inputTombstones = inputRangeTombstones();
            rangeTombstones = survivingTombstones(inputTombstones);
            try (MergingIterator merged = new MergingIterator(children)) {
                children.clear(); // the merging iterator closes them now
                byte[] currentKey = null;
                long lastSequenceForKey = Long.MAX_VALUE;
                // A merge operand needs every entry below it down to the key's next put or delete: while the
                // entries kept so far end in an operand, nothing older may be dropped as shadowed.
                boolean operandAbove = false;
                for (merged.seekToFirst(); merged.valid(); merged.next()) {
                    MemorySegment userKey = merged.userKey();
                    long trailer = merged.trailer();
                    long sequence = InternalKey.sequence(trailer);
                    boolean newKey = currentKey == null || Keys.compare(MemorySegment.ofArray(currentKey), userKey) != 0;
                    if (newKey) {
                        folder.flush();
                        currentKey = Keys.toArray(userKey);
                        lastSequenceForKey = Long.MAX_VALUE;
                        operandAbove = false;
                        // With range tombstones the output stays one table: its key range must take in
                        // every tombstone without overlapping a sibling output.
                        if (out != null && rangeTombstones.isEmpty()
                                && out.writer.estimatedFileSize() >= targetFileSize) {
                            outputs.add(out.finish());
                            out = null;
                        }
                    }
                    if (!inputTombstones.isEmpty() && inputTombstones.coveringSequence(currentKey, oldestSnapshot)
                            > sequence) {
                        // A range tombstone every reader sees hides this entry (and the older ones after it).
                        entriesDropped++;
                        lastSequenceForKey = sequence;
                        continue;
                    }
                    boolean isDelete = InternalKey.kindCode(trailer) == ValueKind.DELETE.code();
                    boolean isMerge = InternalKey.kindCode(trailer) == ValueKind.MERGE.code();
                    MemorySegment value = merged.value();
                    if (lastSequenceForKey <= oldestSnapshot && !operandAbove) {
                        entriesDropped++;
                        lastSequenceForKey = sequence;
                        continue;
                    }
                    boolean newestOfKey = lastSequenceForKey == Long.MAX_VALUE;
                    lastSequenceForKey = sequence;
                    operandAbove = isMerge;
                    if (!isDelete && !isMerge && newestOfKey && filter != null && sequence > newestSnapshot) {
                        CompactionFilter.Decision decision = filter.filter(compaction.outputLevel(), currentKey,
                                value.toArray(ValueLayout.JAVA_BYTE));
                        if (decision instanceof CompactionFilter.Remove) {
                            isDelete = true;
                            value = MemorySegment.ofArray(new byte[0]);
                            trailer = InternalKey.trailer(sequence, ValueKind.DELETE);
                        } else if (decision instanceof CompactionFilter.ChangeValue change) {
                            value = MemorySegment.ofArray(change.newValue().clone());
                        }
                    }
                    if (isDelete && sequence <= oldestSnapshot && isBottommostFor(userKey)) {
                        entriesDropped++;
                        continue;
                    }
                    // Entries with a range tombstone over the key between them differ for readers above the
                    // tombstone: the newest covering tombstone at or below each entry names its stripe.
                    long stripe = inputTombstones.isEmpty() ? 0
                            : inputTombstones.coveringSequence(currentKey, sequence);
                    folder.add(userKey, trailer, value, stripe);
                }
                folder.flush();
            }
            if (out == null && !rangeTombstones.isEmpty()) {
                // Every point entry was dropped, but the tombstones may still hide keys in deeper levels. A
                // table needs a point entry: deleting the first fragment's begin at its own sequence deletes
                // nothing the fragment does not.
                RangeTombstone first = rangeTombstones.getFirst();
                out = new Output(fileNumbers.getAsLong());
                out.writer.add(MemorySegment.ofArray(first.begin()),
                        InternalKey.trailer(first.sequence(), ValueKind.DELETE), MemorySegment.NULL);
            }
            if (out != null) {
                outputs.add(out.finish());
                out = null;
            }
            success = true;
        } finally {
            children.forEach(InternalIterator::close);
            if (out != null) {
                out.abandon();
            }
            if (!success) {
                for (TableMeta t : outputs) {
                    fs.delete(tablePath.apply(t.fileNumber()));
                }
            }
        }
        VersionEdit edit = new VersionEdit();
        for (TableMeta t : compaction.inputs()) {
            edit.remove(compaction.level(), t.fileNumber());
        }
        for (TableMeta t : compaction.outputLevelInputs()) {
            edit.remove(compaction.outputLevel(), t.fileNumber());
        }
        for (TableMeta t : outputs) {
            edit.add(compaction.outputLevel(), t);
        }
        return edit;
    }

    /**
     * Lets compaction fold merge operands with {@code operator} (none: operands are copied as they are);
     * failures of the operator are counted in {@code failures} and reported to {@code log}.
     */
    public CompactionJob withMergeOperator(MergeOperator operator, LongAdder failures, System.Logger log) {
        this.log = log;
        this.mergeOperator = operator;
        this.mergeFailures = failures;
        return this;
    }

    public List<TableMeta> outputs() {
        return outputs;
    }

    public long entriesDropped() {
        return entriesDropped;
    }

    /** The inputs' range tombstones, fragmented together. */
    private FragmentedTombstones inputRangeTombstones() {
        List<RangeTombstone> all = new ArrayList<>();
        for (TableMeta[] tables : List.of(compaction.inputs(),
                compaction.outputLevelInputs())) {
            for (TableMeta table : tables) {
                TableReader reader = tableCache.acquire(table);
                try {
                    all.addAll(reader.rangeTombstones().fragments());
                } finally {
                    reader.release();
                }
            }
        }
        return FragmentedTombstones.of(all);
    }

    /**
     * The fragments the outputs keep. One that every reader sees (at or below the oldest snapshot) and that no
     * deeper level's table overlaps has nothing left to hide: the entries it covers in this compaction are
     * dropped, and anything newer elsewhere is newer than it. Every other fragment is kept.
     */
    private List<RangeTombstone> survivingTombstones(FragmentedTombstones tombstones) {
        List<RangeTombstone> kept = new ArrayList<>();
        for (RangeTombstone t : tombstones.fragments()) {
            if (t.sequence() > oldestSnapshot || !isBottommostFor(t.begin(), t.end())) {
                kept.add(t);
            }
        }
        return kept;
    }

    /** No level below the output level has a table whose range meets {@code [begin, end]}. */
    private boolean isBottommostFor(byte[] begin, byte[] end) {
        for (int level = compaction.outputLevel() + 1; level < Version.NUM_LEVELS; level++) {
            for (TableMeta table : version.level(level)) {
                if (table.overlaps(begin, end)) {
                    return false;
                }
            }
        }
        return true;
    }

    private InternalIterator iterator(TableMeta table) {
        TableReader reader = tableCache.acquire(table);
        try {
            return reader.newIterator();
        } finally {
            reader.release();
        }
    }

    /** No level below the output level holds {@code userKey}: a tombstone for it hides nothing. */
    private boolean isBottommostFor(MemorySegment userKey) {
        for (int level = compaction.outputLevel() + 1; level < Version.NUM_LEVELS; level++) {
            if (version.findInSortedLevel(level, userKey) != null) {
                return false;
            }
        }
        return true;
    }

    /** One output table being written. */
    private final class Output {
        final long number;
        final Path path;
        final TableWriter writer;

        Output(long number) throws IOException {
            this.number = number;
            this.path = tablePath.apply(number);
            WritableFile file = new RateLimitedFile(fs.create(path), limiter, bytesWritten);
            this.writer = new TableWriter(file, tableOptions);
        }

        TableMeta finish() throws IOException {
            try {
                writer.addRangeTombstones(rangeTombstones);
                TableProperties p = writer.finish();
                writer.sync();
                return new TableMeta(number, p.fileSize(), p.smallestUserKey(), p.smallestTrailer(),
                        p.largestUserKey(), p.largestTrailer(), p.smallestSequence(), p.largestSequence(), -1)
                        .widenedTo(rangeTombstones);
            } finally {
                writer.close();
            }
        }

        void abandon() throws IOException {
            writer.abandon();
            fs.delete(path);
        }
    }
}

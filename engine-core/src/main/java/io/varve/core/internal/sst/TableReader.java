package io.varve.core.internal.sst;

import io.varve.core.sst.SstFileWriter;
import io.varve.base.RefCount;

import io.varve.base.Checksums;
import io.varve.base.Varint;
import io.varve.base.lz4.Lz4BlockDecoder;
import io.varve.base.lz4.Lz4FormatException;
import io.varve.core.internal.keys.LookupResult;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.base.fs.ReadableFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import io.varve.base.LeakDetector;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Reads one table file (layout in {@link TableFormat}): point lookups and iterators. Safe for concurrent
 * use by many threads.
 *
 * <h2>Memory and lifetime</h2>
 * The whole file is mapped once, at open, into memory owned by a shared {@link Arena} that only this reader
 * closes. Uncompressed blocks are read in place from that mapping (their parsed form is kept per reader);
 * compressed blocks are decompressed into heap arrays (shared through the optional {@link BlockCache}), or,
 * for an iterator scanning blocks the cache has no room for, into that iterator's own buffer
 * ({@link TableIterator}).
 * The filter and index are copied to the heap at open, so {@link #getCached} can answer from the heap alone.
 *
 * <p>The reader is reference counted. {@link #open} returns it with one reference, owned by the caller.
 * Whoever uses the reader must hold a reference for the whole use: {@link #retain()} adds one,
 * {@link #release()} drops one, and dropping the last closes the arena (unmapping the file) and the file
 * handle. Retaining after that throws {@link IllegalStateException}. Specifically:
 * <ul>
 *   <li>{@link #get} needs the caller's reference for the call, and a value it returns is readable only
 *       while the caller still holds that reference;</li>
 *   <li>{@link #newIterator()} takes a reference of its own, dropped by the iterator's {@code close()}, so
 *       an iterator stays usable after the reader's other owners release it (close every iterator);</li>
 *   <li>segments from an iterator follow {@link InternalIterator}'s rule, and need the iterator open.</li>
 * </ul>
 *
 * <p>Why unmapping is safe: with the counting above, no correct user touches the mapping after the count
 * reaches zero, because every user holds a count. And should a buggy caller still touch a segment of the
 * closed arena, the foreign-memory API checks every access against the arena's liveness (closing a shared
 * arena synchronizes with threads that are mid-access), so the access fails with
 * {@link IllegalStateException} instead of reading unmapped memory and crashing the JVM.
 *
 * <h2>Integrity</h2>
 * The footer, properties, filter and index blocks are checked (checksum and structure) at open. A data
 * block's checksum is verified the first time this reader loads it; a per-reader bitmap remembers verified
 * blocks so later loads of the same mapped bytes skip the CRC (the bytes of a table never change), unless
 * the reader was opened to verify every load (RocksDB's behaviour, for like-for-like benchmarks). Any
 * mismatch or malformed structure raises {@link CorruptionException} naming the file and the offset of the
 * damaged block (from iterators, wrapped in {@link UncheckedIOException}). No decoded length or offset is
 * used before it is checked against its block.
 *
 * <h2>Global sequence</h2>
 * A table built outside the engine ({@link SstFileWriter}) stores every entry at sequence 0. When it is
 * ingested, the engine assigns it a sequence without rewriting it: opened with a global sequence
 * {@code g}, the reader presents every entry stored at sequence 0 as sequence {@code g}.
 */
public final class TableReader {

    /** Pass to {@link #open} to present sequences as stored. */
    public static final long NO_GLOBAL_SEQUENCE = InternalKeys.NO_GLOBAL_SEQUENCE;

    /** See {@link #get(MemorySegment, long, LookupResult)}; the global sequence is set per use. */
    private static final ThreadLocal<BlockIterator> LOOKUP_CURSOR =
            ThreadLocal.withInitial(() -> new BlockIterator(NO_GLOBAL_SEQUENCE, true));

    private final ReadableFile file;
    private final Path path;
    private final long fileNumber;
    private final BlockCache cache;
    private final Arena arena;
    private final LeakDetector.Handle leak;
    private final MemorySegment map;
    private final long globalSequence;
    private final TableProperties properties;
    /** Named when the data blocks disagree with the properties. */
    private final long propertiesOffset;
    private final BloomFilter filter;
    private final IndexBlock index;
    /** Data blocks end in hash indexes (a version-3 table). */
    private final boolean blockHashIndex;
    /** Bit i set: data block i's stored bytes matched their checksum. */
    private final AtomicLongArray verified;
    /** Verify a data block's checksum on every load from the mapping, not only on the first. */
    private final boolean verifyEveryLoad;
    /**
     * Data block i, if it is stored uncompressed and was loaded before: its contents are a slice of the
     * mapping, so keeping the parsed {@link Block} (a small object) saves re-checking its restart array and
     * allocating on every lookup. Written racily: a {@link Block} has only final fields, so any thread that
     * sees the reference sees it complete, and two threads parsing one block store equal objects.
     */
    private final Block[] inPlaceBlocks;
    private final RefCount references;
    private final FragmentedTombstones rangeTombstones;

    /** Opens a table presenting sequences as stored. See {@link #open(ReadableFile, Path, long, BlockCache, long)}. */
    public static TableReader open(ReadableFile file, Path path, long fileNumber, BlockCache cache)
            throws IOException {
        return open(file, path, fileNumber, cache, NO_GLOBAL_SEQUENCE);
    }

    /**
     * Maps and validates a table. Takes ownership of {@code file}: it is closed when the reader's last
     * reference is released, or right away if opening fails.
     *
     * @param path used only in error messages
     * @param fileNumber the key of this table's blocks in {@code cache}; unique among live tables
     * @param cache shared block cache, or null to decompress on every load
     * @param globalSequence {@link #NO_GLOBAL_SEQUENCE}, or the sequence to present for entries stored at
     *     sequence 0; then every entry must be stored at sequence 0
     * @throws CorruptionException if the file is not a valid table
     * @throws IllegalArgumentException if a global sequence is given for a table with non-zero sequences
     */
    public static TableReader open(ReadableFile file, Path path, long fileNumber, BlockCache cache,
                                   long globalSequence) throws IOException {
        return open(file, path, fileNumber, cache, globalSequence, false);
    }

    /**
     * As above; with {@code verifyEveryLoad} a data block's checksum is verified every time the block is read
     * from the file (not found in {@code cache}), not only the first time.
     */
    public static TableReader open(ReadableFile file, Path path, long fileNumber, BlockCache cache,
                                   long globalSequence, boolean verifyEveryLoad) throws IOException {
        return open(file, path, fileNumber, cache, globalSequence, Arena.ofShared(), -1, verifyEveryLoad);
    }

    /**
     * Opens a table for the calling thread alone, as {@link #open(ReadableFile, Path, long, BlockCache)} does
     * otherwise: only this thread may use the reader and release it. Its mapping lives in a confined arena.
     * Why it exists: closing a shared arena makes the JVM stop every thread once (a handshake, so that no
     * thread is mid-access when the memory goes), and a thread stopped inside a memory access is deoptimized.
     * With a shared arena, each ingestion cost one such handshake, and in the ingestion benchmark the writers'
     * longer waits in the commit pipeline coincided with them. A reader that one thread opens, checks and
     * releases, as ingestion does with each external file, need not stop anyone.
     */
    public static TableReader openConfined(ReadableFile file, Path path) throws IOException {
        return openConfined(file, path, -1);
    }

    /**
     * As {@link #openConfined(ReadableFile, Path)}, but a file of at most {@code readUpTo} bytes is read into
     * memory of the confined arena instead of mapped. For a table that one thread checks once and releases
     * (ingestion's external files): a fresh mapping costs page faults as it is read, and its unmapping makes
     * the kernel interrupt every processor the process runs on (a TLB shootdown). With ingestions ten times a
     * second, mapped checks delayed the writers' puts (docs/benchmarks.md, "Ingestion while writing"); reading
     * the file once costs neither. {@code readUpTo} bounds the memory held until the reader is released.
     */
    public static TableReader openConfined(ReadableFile file, Path path, long readUpTo) throws IOException {
        return open(file, path, 0, null, NO_GLOBAL_SEQUENCE, Arena.ofConfined(), readUpTo, false);
    }

    private static TableReader open(ReadableFile file, Path path, long fileNumber, BlockCache cache,
                                    long globalSequence, Arena arena, long readUpTo, boolean verifyEveryLoad)
            throws IOException {
        LeakDetector.Handle leak = null;
        try {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(path, "path");
            if (globalSequence != NO_GLOBAL_SEQUENCE
                    && (globalSequence < 0 || globalSequence > InternalKey.MAX_SEQUENCE)) {
                throw new IllegalArgumentException("global sequence out of range: " + globalSequence);
            }
            MemorySegment map = (file.size() <= readUpTo ? read(file, arena) : file.map(arena)).asReadOnly();
            leak = LeakDetector.track("mapping", path);
            return new TableReader(file, path, fileNumber, cache, arena, map, globalSequence, leak, verifyEveryLoad);
        } catch (Throwable t) {
            if (leak != null) {
                leak.close();
            }
            arena.close();
            try {
                if (file != null) {
                    file.close();
                }
            } catch (IOException closeFailure) {
                t.addSuppressed(closeFailure);
            }
            throw t;
        }
    }

    private static MemorySegment read(ReadableFile file, Arena arena) throws IOException {
        long size = file.size();
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("too large to read into memory: " + size + " bytes");
        }
        MemorySegment memory = arena.allocate(size, Long.BYTES);
        file.readFully(memory.asByteBuffer(), 0);
        return memory;
    }

    private TableReader(ReadableFile file, Path path, long fileNumber, BlockCache cache, Arena arena,
                        MemorySegment map, long globalSequence, LeakDetector.Handle leak, boolean verifyEveryLoad)
            throws CorruptionException {
        this.verifyEveryLoad = verifyEveryLoad;
        this.file = file;
        this.leak = leak;
        this.path = path;
        this.references = new RefCount("table " + path);
        this.fileNumber = fileNumber;
        this.cache = cache;
        this.arena = arena;
        this.map = map;
        this.globalSequence = globalSequence;

        Footer footer = Footer.read(map, path);
        long footerStart = map.byteSize() - TableFormat.FOOTER_SIZE;
        BlockHandle indexHandle = footer.index();
        BlockHandle propertiesHandle = footer.properties();
        // Blocks are contiguous: [data][filter?][properties][index][footer]. Anything else is damage.
        if (indexHandle.end() != footerStart || propertiesHandle.end() != indexHandle.offset()
                || (footer.hasFilter() && footer.filter().end() != propertiesHandle.offset())) {
            throw new CorruptionException(path, footerStart, "footer handles do not describe a contiguous "
                    + "layout: filter " + footer.filter() + ", properties " + propertiesHandle + ", index "
                    + indexHandle);
        }
        long dataEnd = footer.hasFilter() ? footer.filter().offset() : propertiesHandle.offset();

        this.properties = PropertiesBlock.decode(readMetaBlock(propertiesHandle), map.byteSize(), path,
                propertiesHandle.offset());
        this.propertiesOffset = propertiesHandle.offset();
        this.rangeTombstones = FragmentedTombstones.of(PropertiesBlock.rangeDeletions(
                readMetaBlock(propertiesHandle), path, propertiesHandle.offset()));
        this.blockHashIndex = properties.dataBlockHashIndex();
        if (blockHashIndex != (footer.version() == TableFormat.HASH_INDEX_FORMAT_VERSION)) {
            throw new CorruptionException(path, propertiesHandle.offset(), "format version " + footer.version()
                    + (blockHashIndex ? " with" : " without") + " the " + TableFormat.PROP_DATA_BLOCK_HASH_INDEX
                    + " property");
        }
        if (footer.hasFilter() != (properties.bloomBitsPerKey() > 0)) {
            throw new CorruptionException(path, propertiesHandle.offset(), "filter presence disagrees with "
                    + "bloom bits per key " + properties.bloomBitsPerKey());
        }
        if (footer.hasFilter()) {
            try {
                this.filter = BloomFilter.fromStored(onHeap(readMetaBlock(footer.filter())));
            } catch (IllegalArgumentException e) {
                throw new CorruptionException(path, footer.filter().offset(), e.getMessage());
            }
        } else {
            this.filter = null;
        }
        Block indexBlock = Block.parse(onHeap(readMetaBlock(indexHandle)), path, indexHandle.offset());
        this.index = IndexBlock.parse(indexBlock, dataEnd, globalSequence);
        if (index.count() != properties.dataBlockCount()) {
            throw new CorruptionException(path, indexHandle.offset(), "index lists " + index.count()
                    + " data blocks, properties say " + properties.dataBlockCount());
        }
        if (globalSequence != NO_GLOBAL_SEQUENCE && properties.largestSequence() != 0) {
            throw new IllegalArgumentException("a global sequence applies only to tables written at sequence 0, "
                    + path + " has sequences up to " + properties.largestSequence());
        }
        this.verified = new AtomicLongArray((index.count() + 63) / 64);
        this.inPlaceBlocks = new Block[index.count()];
    }

    // ---- Reference counting ----------------------------------------------------------------------------

    /** Adds a reference. Throws {@link IllegalStateException} if the reader is already closed. */
    public void retain() {
        references.retain();
    }

    /** Drops a reference; the last one unmaps the file and closes it. */
    public void release() {
        if (references.release()) {
            closeResources();
        }
    }

    /** The current number of references; 0 once closed. For diagnostics and tests. */
    public int referenceCount() {
        return references.get();
    }

    private void closeResources() {
        arena.close();
        leak.close();
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing table " + path, e);
        }
    }

    private void requireOpen() {
        if (references.get() <= 0) {
            throw new IllegalStateException("table " + path + " is closed");
        }
    }

    // ---- Reads -----------------------------------------------------------------------------------------

    /** The table's range tombstones, fragmented; empty for tables without any. */
    public FragmentedTombstones rangeTombstones() {
        return rangeTombstones;
    }

    public TableProperties properties() {
        return properties;
    }

    public Path path() {
        return path;
    }

    public long fileNumber() {
        return fileNumber;
    }

    /** {@link #NO_GLOBAL_SEQUENCE} or the sequence presented for entries stored at sequence 0. */
    public long globalSequence() {
        return globalSequence;
    }

    /** False only if the table certainly holds no entry for {@code userKey}; true without a filter. */
    public boolean mayContain(MemorySegment userKey) {
        requireOpen();
        return filter == null || filter.mayContain(userKey);
    }

    /** Like {@link #get(MemorySegment, long, LookupResult)}, with a fresh result. */
    public LookupResult get(MemorySegment userKey, long snapshotSequence) throws CorruptionException {
        LookupResult result = new LookupResult();
        get(userKey, snapshotSequence, result);
        return result;
    }

    /**
     * Finds the newest entry of {@code userKey} with sequence {@code <= snapshotSequence} and records it in
     * {@code result}: FOUND with the value, DELETED, or NOT_FOUND. The caller must hold a reference for the
     * call and for as long as it reads the value.
     */
    public void get(MemorySegment userKey, long snapshotSequence, LookupResult result)
            throws CorruptionException {
        find(userKey, snapshotSequence, result, false);
    }

    /**
     * {@link #get(MemorySegment, long, LookupResult)} from memory the reader holds on the heap only (RocksDB's
     * block-cache tier): the filter, the index, and data blocks in the block cache. Never reads the mapping,
     * so it never waits for the disk.
     *
     * @return true when {@code result} holds the answer (FOUND, DELETED, or NOT_FOUND because the filter or
     *     index rules the key out); false when a data block it needs is not cached (then {@code result} is
     *     NOT_FOUND and means nothing: read again with {@link #get})
     */
    public boolean getCached(MemorySegment userKey, long snapshotSequence, LookupResult result)
            throws CorruptionException {
        return find(userKey, snapshotSequence, result, true);
    }

    private boolean find(MemorySegment userKey, long snapshotSequence, LookupResult result, boolean cachedOnly)
            throws CorruptionException {
        requireOpen();
        if (snapshotSequence < 0 || snapshotSequence > InternalKey.MAX_SEQUENCE) {
            throw new IllegalArgumentException("snapshot sequence out of range: " + snapshotSequence);
        }
        result.setNotFound();
        // One hash serves the filter and the data blocks' hash indexes.
        long hash = filter != null || blockHashIndex ? KeyHash.hash64(userKey) : 0;
        if (filter != null && !filter.mayContainHash(hash)) {
            return true;
        }
        long target = InternalKey.seekTrailer(snapshotSequence);
        // A point lookup runs start to end on one thread and calls out to nothing, so one cursor per thread
        // serves every lookup in every table: no cursor or key buffer is allocated per lookup.
        BlockIterator cursor = LOOKUP_CURSOR.get();
        try {
            // Block i's separator is >= the target, but the block's last key may still be below it (the
            // separator may be the next block's user key with a trailer that sorts first); then the first
            // entry at or after the target opens the next block.
            for (int i = index.findFirstAtOrAfter(userKey, target); i < index.count(); i++) {
                Block block;
                if (cachedOnly) {
                    // Only verified, decompressed blocks are ever cached; the mapping is not read at all.
                    block = cache == null ? null : cache.get(fileNumber, index.blockOffset(i));
                    if (block == null) {
                        return false;
                    }
                } else {
                    block = dataBlock(i);
                }
                cursor.reset(block, globalSequence);
                cursor.seek(userKey, target, block.restartHint(hash));
                if (cursor.valid()) {
                    break;
                }
            }
            if (!cursor.valid() || !cursor.userKeyEquals(userKey)) {
                return true;
            }
            long trailer = cursor.trailer();
            int kind = InternalKey.kindCode(trailer);
            if (kind == ValueKind.PUT.code()) {
                result.setFound(trailer, cursor.block().contents, cursor.valueOffset(), cursor.valueLength());
            } else if (kind == ValueKind.MERGE.code()) {
                result.setMerge(trailer, cursor.block().contents, cursor.valueOffset(), cursor.valueLength());
            } else {
                result.setDeleted(trailer);
            }
            return true;
        } finally {
            cursor.clear();
        }
    }

    /** A new iterator over all entries; it holds its own reference until closed. */
    public InternalIterator newIterator() {
        retain();
        return new TableIterator(this, index);
    }

    /**
     * Reads every data block and checks what reads rely on beyond the checks made at open: each block's
     * checksum, entries in strictly increasing internal-key order within and across blocks, each entry of
     * block {@code i} at or below index separator {@code i} and above separator {@code i - 1} (or a lookup
     * would search the wrong block), every restart point on an entry that holds its whole key (a seek starts
     * decoding there), every user key passing the filter, and the entry counts and first and last keys the
     * properties claim. Ingestion runs this on every external file: the engine never wrote it, so nothing else
     * vouches for it. The entries are decoded by {@link EntryCheck}, from byte arrays.
     *
     * @throws CorruptionException naming this table's path and the offset of the offending block (the
     *     properties block's for a mismatch with the properties)
     */
    public void verifyContents() throws CorruptionException {
        verifyContents(new CpuSlice());
    }

    /** {@link #verifyContents()}, yielding the processor between blocks whenever {@code slice} has run out. */
    public void verifyContents(CpuSlice slice) throws CorruptionException {
        requireOpen();
        EntryCheck check = new EntryCheck(path, globalSequence, index, filter, properties);
        // Reused for every block: a check allocates per block size growth, not per block.
        byte[] stored = new byte[0];
        for (int i = 0; i < index.count(); i++) {
            slice.step();
            long offset = index.blockOffset(i);
            int size = index.blockSize(i);
            verifyChecksum(offset, size);
            byte type = map.get(ValueLayout.JAVA_BYTE, offset + size);
            if (type == TableFormat.COMPRESSION_NONE) {
                stored = atLeast(stored, size);
                MemorySegment.copy(map, ValueLayout.JAVA_BYTE, offset, stored, 0, size);
                check.block(i, offset, stored, size);
            } else if (type == TableFormat.COMPRESSION_LZ4) {
                long header = lz4Header(offset, size);
                stored = atLeast(stored, Varint.value(header));
                lz4(offset, size, header, stored);
                check.block(i, offset, stored, Varint.value(header));
            } else {
                throw new CorruptionException(path, offset, "unknown compression type " + type);
            }
        }
        check.finish(propertiesOffset);
    }

    private static byte[] atLeast(byte[] buffer, int size) {
        return buffer.length >= size ? buffer : new byte[Math.max(size, buffer.length * 2)];
    }

    // ---- Block loading ---------------------------------------------------------------------------------

    int dataBlockCount() {
        return index.count();
    }

    /** File offset of data block {@code i}: the offset named when that block is found damaged. */
    long dataBlockOffset(int i) {
        return index.blockOffset(i);
    }

    /** Stored size of data block {@code i}, trailer excluded. */
    int dataBlockSize(int i) {
        return index.blockSize(i);
    }

    /** The user key part of data block {@code i}'s index separator, for diagnostics and tests. */
    MemorySegment indexSeparatorUserKey(int i) {
        return index.separatorUserKey(i);
    }

    /**
     * Loads data block {@code ordinal}: from the cache if it is compressed and cached, else from the
     * mapping (checking its checksum unless already verified), decompressing and caching as needed.
     */
    Block dataBlock(int ordinal) throws CorruptionException {
        return dataBlock(ordinal, null);
    }

    /**
     * {@link #dataBlock(int)} for an iterator stepping from one block to the next: a compressed block that
     * is not cached, and that the cache has no room for without evicting (or that no cache would keep), is
     * decoded into {@code scratch} instead of a new array and is not cached, so it is valid only until
     * {@code scratch} is filled again. With a null {@code scratch}, as {@link #dataBlock(int)}.
     */
    Block dataBlock(int ordinal, BlockScratch scratch) throws CorruptionException {
        // In-place blocks and the cache are consulted before the mapping is touched: the type byte read
        // can miss the page cache, and a block found in either was verified when it was first loaded.
        Block parsed = inPlaceBlocks[ordinal];
        if (parsed != null) {
            return parsed;
        }
        long offset = index.blockOffset(ordinal);
        if (cache != null) {
            // Only verified, decompressed blocks of this file are ever cached under its number.
            Block cached = cache.find(fileNumber, offset);
            if (cached != null) {
                return cached;
            }
        }
        int size = index.blockSize(ordinal);
        byte type = map.get(ValueLayout.JAVA_BYTE, offset + size);
        if (cache != null && type != TableFormat.COMPRESSION_NONE) {
            cache.recordMiss();
        }
        if (verifyEveryLoad || !isVerified(ordinal)) {
            verifyChecksum(offset, size);
            markVerified(ordinal);
        }
        if (scratch != null && type == TableFormat.COMPRESSION_LZ4) {
            long header = lz4Header(offset, size);
            int length = Varint.value(header);
            if (cache == null || !cache.hasRoomFor(fileNumber, offset, length)) {
                lz4(offset, size, header, scratch.bytes(length));
                return blockHashIndex ? Block.parseWithHashIndex(scratch.contents(length), path, offset)
                        : Block.parse(scratch.contents(length), path, offset);
            }
        }
        MemorySegment contents = decodeContents(offset, size, type);
        Block block = blockHashIndex ? Block.parseWithHashIndex(contents, path, offset)
                : Block.parse(contents, path, offset);
        if (type == TableFormat.COMPRESSION_NONE) {
            inPlaceBlocks[ordinal] = block;
        } else if (cache != null) {
            cache.put(fileNumber, offset, block);
        }
        return block;
    }

    private boolean isVerified(int ordinal) {
        return (verified.get(ordinal >>> 6) & (1L << ordinal)) != 0;
    }

    private void markVerified(int ordinal) {
        verified.getAndAccumulate(ordinal >>> 6, 1L << ordinal, (a, b) -> a | b);
    }

    /**
     * A heap copy of a block read in place from the mapping. The filter and the index are copied once, at
     * open: every lookup reads them, and a lookup that must not wait for the disk ({@link #getCached})
     * must not touch the mapping, where any read may page-fault.
     */
    private static MemorySegment onHeap(MemorySegment contents) {
        return contents.isNative() ? MemorySegment.ofArray(contents.toArray(ValueLayout.JAVA_BYTE)).asReadOnly()
                : contents;
    }

    /** Checks the checksum of a metadata block and returns its uncompressed contents. */
    private MemorySegment readMetaBlock(BlockHandle handle) throws CorruptionException {
        verifyChecksum(handle.offset(), handle.size());
        return decodeContents(handle.offset(), handle.size(),
                map.get(ValueLayout.JAVA_BYTE, handle.offset() + handle.size()));
    }

    private void verifyChecksum(long offset, int size) throws CorruptionException {
        int stored = map.get(Block.FIXED32, offset + size + 1);
        int actual = Checksums.mask(Checksums.crc32c(map, offset, size + 1L));
        if (stored != actual) {
            throw new CorruptionException(path, offset, "block checksum mismatch: stored 0x"
                    + Integer.toHexString(stored) + ", computed 0x" + Integer.toHexString(actual));
        }
    }

    /** The block's contents as the reader uses them: in place, or decompressed to the heap. */
    private MemorySegment decodeContents(long offset, int size, byte type) throws CorruptionException {
        return switch (type) {
            case TableFormat.COMPRESSION_NONE -> map.asSlice(offset, size);
            case TableFormat.COMPRESSION_LZ4 -> decompress(offset, size);
            default -> throw new CorruptionException(path, offset, "unknown compression type " + type);
        };
    }

    private MemorySegment decompress(long offset, int size) throws CorruptionException {
        long header = lz4Header(offset, size);
        byte[] target = new byte[Varint.value(header)];
        lz4(offset, size, header, target);
        return MemorySegment.ofArray(target).asReadOnly();
    }

    /**
     * The header of the LZ4 block stored at {@code offset}: its uncompressed length, checked to be possible,
     * packed with the header's own length as {@link Varint#decodeInt} packs them.
     */
    private long lz4Header(long offset, int size) throws CorruptionException {
        long header = Varint.decodeInt(map, offset, offset + size);
        if (header == Varint.MALFORMED || Varint.value(header) > TableFormat.MAX_BLOCK_CONTENTS_SIZE) {
            throw new CorruptionException(path, offset, "bad uncompressed length in compressed block");
        }
        // LZ4 cannot expand input by more than ~255x; a larger claim is damage, and must not make us
        // allocate up to a gigabyte before the decompressor notices.
        int compressed = size - Varint.length(header);
        if (Varint.value(header) > (long) TableFormat.LZ4_MAX_EXPANSION * compressed + 64) {
            throw new CorruptionException(path, offset, "compressed block claims " + Varint.value(header)
                    + " bytes from " + compressed);
        }
        return header;
    }

    /**
     * Decompresses the LZ4 block stored at {@code offset} (with {@code size} stored bytes and the header
     * {@link #lz4Header} returned) from the mapping straight into the start of {@code target}.
     */
    private void lz4(long offset, int size, long header, byte[] target) throws CorruptionException {
        int headerLength = Varint.length(header);
        try {
            Lz4BlockDecoder.decode(map, offset + headerLength, size - headerLength, target, 0,
                    Varint.value(header));
        } catch (Lz4FormatException e) {
            throw new CorruptionException(path, offset, "LZ4 data does not decompress (" + e.getMessage() + ")");
        }
    }

    @Override
    public String toString() {
        return "TableReader{" + path + ", file " + fileNumber + ", references " + references.get() + "}";
    }
}

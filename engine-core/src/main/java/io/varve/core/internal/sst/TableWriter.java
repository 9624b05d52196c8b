package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.base.Varint;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.rangedel.FragmentedTombstones;
import io.varve.core.internal.rangedel.RangeTombstone;
import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Writes one sorted table (layout in {@link TableFormat}) through a {@link WritableFile} it owns.
 *
 * <p>Lifecycle: {@link #add} entries in strictly increasing internal-key order, then {@link #finish()}, then
 * optionally {@link #sync()}, then {@link #close()}. Closing without a successful finish abandons the table
 * (the file is closed, its partial contents left for the caller to delete: the writer does not know the
 * file's name). After an I/O error the writer refuses further work; the caller abandons it.
 *
 * <p>Finished blocks are gathered in memory and handed to the file in writes of about
 * {@link TableFormat#WRITE_BUFFER_SIZE}, so a table costs few system calls ({@link BlockEncoder}). The writer
 * never syncs on its own: the caller decides when durability is needed (a flush syncs before installing the
 * table; a compaction may sync its outputs together). Not thread-safe.
 *
 * <p>A {@linkplain #pipelined pipelined} writer compresses, checksums and writes its data blocks on a thread
 * of its own ({@link BlockPipeline}) while the caller goes on adding entries; its output is byte for byte
 * what a plain writer writes. Either way the index is built in {@link #finish()}, from the separators
 * gathered while adding and the places the encoder stored the data blocks at.
 */
public final class TableWriter implements AutoCloseable {

    /** Largest user key plus value {@link #add} accepts ({@link TableFormat#MAX_ENTRY_SIZE}). */
    public static final int MAX_ENTRY_SIZE = TableFormat.MAX_ENTRY_SIZE;

    private enum State { OPEN, FINISHED, FAILED, CLOSED }

    private final WritableFile file;
    private final TableOptions options;
    private final BlockBuilder dataBlock;
    private final BlockEncoder encoder;
    /** Null for a plain writer, which encodes its data blocks itself. */
    private final BlockPipeline pipeline;
    private State state = State.OPEN;

    /** The last key added, encoded as user key + trailer; {@code key} is scratch for the one being added. */
    private byte[] lastKey = new byte[64];
    private int lastKeyLength;
    private byte[] key = new byte[64];

    /** A finished data block waits for the next key so its index separator can be shortened. */
    private boolean separatorPending;
    private byte[] separator = new byte[64];
    /** The index separators of the finished data blocks, back to back; block i's ends at separatorEnds[i]. */
    private final ByteBuilder separators = new ByteBuilder(4096);
    private int[] separatorEnds = new int[256];
    private int separatorCount;

    private long[] keyHashes;
    private int keyHashCount;
    /** {@link KeyHash#hash64} of the last user key added, when a filter or block hash index needs it. */
    private long userKeyHash;

    private String columnFamily;

    private long entryCount;
    private final List<RangeTombstone> rangeTombstones = new ArrayList<>();
    private long deletionCount;
    private byte[] smallestKey;
    private long smallestSequence = Long.MAX_VALUE;
    private long largestSequence = -1;
    private long rawKeyBytes;
    private long rawValueBytes;
    private long dataBlockCount;
    private long uncompressedDataBytes;

    /**
     * Starts a table in {@code file}, which must be empty; the writer owns the file from here on (closing it
     * in {@link #close()}).
     */
    public TableWriter(WritableFile file, TableOptions options) {
        this(file, options, null);
    }

    /**
     * A writer that encodes its data blocks on a thread it starts now and ends in {@link #finish()} or
     * {@link #close()} (so close it in every case, as any writer). {@link #estimatedFileSize()} is not
     * available: the encoding thread is behind the caller by a few blocks.
     *
     * @param owner who closes the writer, e.g. the database directory: names the thread for leak reports
     */
    public static TableWriter pipelined(WritableFile file, TableOptions options, String owner) {
        return new TableWriter(file, options, Objects.requireNonNull(owner, "owner"));
    }

    private TableWriter(WritableFile file, TableOptions options, String pipelineOwner) {
        this.file = Objects.requireNonNull(file, "file");
        this.options = Objects.requireNonNull(options, "options");
        if (file.size() != 0) {
            throw new IllegalArgumentException("table file must be empty, has " + file.size() + " bytes");
        }
        this.dataBlock = new BlockBuilder(options.restartInterval(), options.blockSize(),
                options.dataBlockHashIndex());
        this.keyHashes = options.bloomBitsPerKey() > 0 ? new long[1024] : null;
        this.encoder = new BlockEncoder(file, options.compression());
        this.pipeline = pipelineOwner == null ? null : new BlockPipeline(encoder, pipelineOwner);
    }

    /**
     * Appends an entry. Internal keys must strictly increase: user keys ascending (unsigned bytes), and for
     * one user key, trailers descending.
     *
     * @throws IllegalArgumentException naming both keys if the order is violated, or for an unknown kind or
     *     an oversized entry
     */
    public void add(MemorySegment userKey, long trailer, MemorySegment value) throws IOException {
        requireState(State.OPEN);
        ValueKind kind = ValueKind.pointKindOrNull(InternalKey.kindCode(trailer));
        if (kind == null) {
            throw new IllegalArgumentException("unknown value kind " + InternalKey.kindCode(trailer) + " in "
                    + InternalKeys.describe(userKey, trailer));
        }
        if (userKey.byteSize() + value.byteSize() > TableFormat.MAX_ENTRY_SIZE) {
            throw new IllegalArgumentException("entry of " + (userKey.byteSize() + value.byteSize())
                    + " bytes exceeds the limit of " + TableFormat.MAX_ENTRY_SIZE);
        }
        int userKeyLength = (int) userKey.byteSize();
        int keyLength = userKeyLength + TableFormat.KEY_TRAILER_SIZE;
        if (key.length < keyLength) {
            key = new byte[Math.max(keyLength, key.length * 2)];
        }
        MemorySegment.copy(userKey, ValueLayout.JAVA_BYTE, 0, key, 0, userKeyLength);
        InternalKeys.writeTrailer(key, userKeyLength, trailer);

        boolean newUserKey = true;
        if (entryCount > 0) {
            int lastUserKeyLength = lastKeyLength - TableFormat.KEY_TRAILER_SIZE;
            int c = Arrays.compareUnsigned(lastKey, 0, lastUserKeyLength, key, 0, userKeyLength);
            long lastTrailer = InternalKeys.readTrailer(lastKey, lastUserKeyLength);
            newUserKey = c != 0;
            if (c > 0 || (c == 0 && Long.compareUnsigned(lastTrailer, trailer) <= 0)) {
                throw new IllegalArgumentException("table entries must be added in strictly increasing order: "
                        + InternalKeys.describe(userKey, trailer) + " does not come after "
                        + InternalKeys.describe(MemorySegment.ofArray(lastKey).asSlice(0, lastUserKeyLength),
                                lastTrailer));
            }
        }

        try {
            if (separatorPending) {
                int separatorLength = shortSeparator(lastKey, lastKeyLength, key, keyLength);
                addSeparator(separator, separatorLength);
                separatorPending = false;
            }
            if (newUserKey && (keyHashes != null || options.dataBlockHashIndex())) {
                userKeyHash = KeyHash.hash64(userKey);
                if (keyHashes != null) {
                    if (keyHashCount == keyHashes.length) {
                        keyHashes = Arrays.copyOf(keyHashes, keyHashCount * 2);
                    }
                    keyHashes[keyHashCount++] = userKeyHash;
                }
            }
            if (options.dataBlockHashIndex()) {
                dataBlock.add(key, keyLength, value, userKeyHash);
            } else {
                dataBlock.add(key, keyLength, value);
            }
            recordStatistics(kind, InternalKey.sequence(trailer), keyLength, value.byteSize());
            byte[] previous = lastKey;
            lastKey = key;
            lastKeyLength = keyLength;
            key = previous;
            if (dataBlock.estimatedSize() >= options.blockSize()) {
                flushDataBlock();
            }
        } catch (IOException | RuntimeException e) {
            state = State.FAILED;
            throw e;
        }
    }

    /**
     * Records range tombstones in the table (fragments, as {@link FragmentedTombstones#fragments()} gives
     * them). A table still needs at least one point entry; callers that have only tombstones add a point
     * deletion of a fragment's begin at its sequence, which deletes nothing the fragment does not.
     */
    public void addRangeTombstones(List<RangeTombstone> fragments) {
        requireState(State.OPEN);
        for (RangeTombstone t : fragments) {
            // Level-0 order and ingestion placement go by a table's sequences: its tombstones count too.
            smallestSequence = Math.min(smallestSequence, t.sequence());
            largestSequence = Math.max(largestSequence, t.sequence());
            rangeTombstones.add(t);
        }
    }

    /** Entries added so far. */
    public long entryCount() {
        return entryCount;
    }

    /** Records, in the properties, the column family the table is meant for (external tables only). */
    public void columnFamily(String name) {
        requireState(State.OPEN);
        this.columnFamily = Objects.requireNonNull(name, "columnFamily");
    }

    /**
     * Bytes the file would have if the table were cut here, not counting metadata: lets a compaction close
     * an output at its target size.
     */
    public long estimatedFileSize() {
        if (pipeline != null) {
            throw new IllegalStateException("a pipelined table writer does not know its file size before finish");
        }
        return encoder.offset() + dataBlock.estimatedSize();
    }

    /**
     * Writes the remaining data block, the filter, properties and index blocks and the footer, and hands
     * every byte to the file. Does not sync. A table needs at least one entry.
     *
     * @return the table's properties, with {@link TableProperties#fileSize()} set
     */
    public TableProperties finish() throws IOException {
        requireState(State.OPEN);
        if (entryCount == 0) {
            throw new IllegalStateException("a table needs at least one entry");
        }
        try {
            if (!dataBlock.isEmpty()) {
                flushDataBlock();
            }
            if (separatorPending) {
                // The last separator is the last key itself: no next key to shorten against.
                addSeparator(lastKey, lastKeyLength);
                separatorPending = false;
            }
            // Built before waiting for the pipeline, so the filter overlaps with encoding the last blocks.
            byte[] filterBits = keyHashes == null ? null
                    : BloomFilter.build(keyHashes, keyHashCount, options.bloomBitsPerKey());
            if (pipeline != null) {
                pipeline.finish();
            }
            BlockHandle filter = Footer.NO_FILTER;
            if (filterBits != null) {
                filter = encoder.writeBlock(filterBits, 0, filterBits.length, false);
            }
            TableProperties properties = buildProperties();
            byte[] encodedProperties = PropertiesBlock.encode(properties, rangeTombstones);
            BlockHandle propertiesHandle = encoder.writeBlock(encodedProperties, 0, encodedProperties.length,
                    false);
            ByteBuilder index = buildIndex();
            BlockHandle indexHandle = encoder.writeBlock(index.array(), 0, index.size(), false);
            int version = options.dataBlockHashIndex() ? TableFormat.HASH_INDEX_FORMAT_VERSION
                    : TableFormat.PLAIN_FORMAT_VERSION;
            encoder.appendRaw(new Footer(indexHandle, filter, propertiesHandle, version).encode());
            encoder.flush();
            state = State.FINISHED;
            return properties.withFileSize(encoder.offset());
        } catch (IOException | RuntimeException e) {
            state = State.FAILED;
            throw e;
        }
    }

    /** Forces the finished table to the device. Only after {@link #finish()}. */
    public void sync() throws IOException {
        requireState(State.FINISHED);
        file.sync();
    }

    /** Stops writing and closes the file; its partial contents are the caller's to delete. */
    public void abandon() throws IOException {
        close();
    }

    /** Closes the file. Before a successful {@link #finish()}, this abandons the table. */
    @Override
    public void close() throws IOException {
        if (state != State.CLOSED) {
            state = State.CLOSED;
            if (pipeline != null) {
                pipeline.close(); // its thread writes to the file until joined
            }
            file.close();
        }
    }

    private void requireState(State expected) {
        if (state != expected) {
            throw new IllegalStateException("table writer is " + state + ", expected " + expected);
        }
    }

    private void recordStatistics(ValueKind kind, long sequence, int keyLength, long valueLength) {
        if (entryCount == 0) {
            smallestKey = Arrays.copyOf(key, keyLength);
        }
        entryCount++;
        if (kind == ValueKind.DELETE) {
            deletionCount++;
        }
        smallestSequence = Math.min(smallestSequence, sequence);
        largestSequence = Math.max(largestSequence, sequence);
        rawKeyBytes += keyLength;
        rawValueBytes += valueLength;
    }

    private TableProperties buildProperties() {
        int smallestUserKeyLength = smallestKey.length - TableFormat.KEY_TRAILER_SIZE;
        int largestUserKeyLength = lastKeyLength - TableFormat.KEY_TRAILER_SIZE;
        return new TableProperties(entryCount, deletionCount,
                Arrays.copyOf(smallestKey, smallestUserKeyLength),
                InternalKeys.readTrailer(smallestKey, smallestUserKeyLength),
                Arrays.copyOf(lastKey, largestUserKeyLength),
                InternalKeys.readTrailer(lastKey, largestUserKeyLength),
                smallestSequence, largestSequence, rawKeyBytes, rawValueBytes, dataBlockCount,
                encoder.compressedDataBlockCount(), encoder.dataBytes(), uncompressedDataBytes,
                options.bloomBitsPerKey(),
                options.blockSize(), options.restartInterval(), System.currentTimeMillis(), TableFormat.CREATOR,
                columnFamily, options.dataBlockHashIndex(), 0);
    }

    private void flushDataBlock() throws IOException {
        ByteBuilder contents = dataBlock.finish();
        if (pipeline != null) {
            pipeline.add(contents.array(), contents.size());
        } else {
            encoder.writeDataBlock(contents.array(), 0, contents.size());
        }
        dataBlockCount++;
        uncompressedDataBytes += contents.size();
        dataBlock.reset();
        separatorPending = true;
    }

    /**
     * Picks a short separator between the last key of a block and the first key of the next. Where the user
     * keys first differ (at byte {@code i}, inside both), the last key's byte is smaller; the separator is
     * the last key's first {@code i} bytes plus that byte incremented, with
     * {@link TableFormat#SEPARATOR_TRAILER}. It is above the last key (larger at byte {@code i}) and below
     * the next key: either smaller at byte {@code i}, or a prefix of the next user key, or that very user
     * key with a trailer that sorts before all of its entries. Used only when strictly shorter than the last
     * user key; otherwise the separator is the last key itself. Writes into {@link #separator}, returns
     * its length.
     */
    private int shortSeparator(byte[] last, int lastLength, byte[] next, int nextLength) {
        int lastUser = lastLength - TableFormat.KEY_TRAILER_SIZE;
        int nextUser = nextLength - TableFormat.KEY_TRAILER_SIZE;
        int differ = Arrays.mismatch(last, 0, lastUser, next, 0, nextUser);
        if (differ >= 0 && differ + 1 < lastUser && differ < nextUser) {
            int length = differ + 1 + TableFormat.KEY_TRAILER_SIZE;
            ensureSeparatorCapacity(length);
            System.arraycopy(last, 0, separator, 0, differ);
            separator[differ] = (byte) ((last[differ] & 0xFF) + 1);
            InternalKeys.writeTrailer(separator, differ + 1, TableFormat.SEPARATOR_TRAILER);
            return length;
        }
        ensureSeparatorCapacity(lastLength);
        System.arraycopy(last, 0, separator, 0, lastLength);
        return lastLength;
    }

    private void ensureSeparatorCapacity(int length) {
        if (separator.length < length) {
            separator = new byte[Math.max(length, separator.length * 2)];
        }
    }

    private void addSeparator(byte[] separatorKey, int length) {
        separators.append(separatorKey, 0, length);
        if (separatorCount == separatorEnds.length) {
            separatorEnds = Arrays.copyOf(separatorEnds, separatorCount * 2);
        }
        separatorEnds[separatorCount++] = separators.size();
    }

    /** The index block: one entry per data block, its separator and where the encoder stored it. */
    private ByteBuilder buildIndex() {
        if (encoder.dataBlockCount() != separatorCount) {
            throw new IllegalStateException(encoder.dataBlockCount() + " data blocks stored for "
                    + separatorCount + " separators");
        }
        BlockBuilder index = new BlockBuilder(TableFormat.INDEX_RESTART_INTERVAL, 4096);
        byte[] all = separators.array();
        byte[] key = new byte[64];
        byte[] handleScratch = new byte[2 * Varint.MAX_LONG_LENGTH];
        int start = 0;
        for (int i = 0; i < separatorCount; i++) {
            int length = separatorEnds[i] - start;
            if (key.length < length) {
                key = new byte[Math.max(length, key.length * 2)];
            }
            System.arraycopy(all, start, key, 0, length);
            BlockHandle handle = encoder.dataBlock(i);
            int handleLength = Varint.write(handleScratch, 0, handle.offset());
            handleLength = Varint.write(handleScratch, handleLength, handle.size());
            index.add(key, length, handleScratch, handleLength);
            start = separatorEnds[i];
        }
        return index.finish();
    }
}

package io.varve.core.internal.sst;

import io.varve.base.Varint;
import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The entry walk of {@link TableReader#verifyContents()}: decodes every entry of a table's data blocks, one
 * block at a time, each held uncompressed in a byte array, and checks what readers rely on without checking
 * it themselves: entries in strictly increasing internal-key order within and across blocks, every restart
 * point on the start of an entry that holds a full key (a seek trusts both), each block's entries inside
 * the range its index separators give it, and every user key passing the table's filter (a point lookup
 * skips a table whose filter rejects the key), and the first entry, the last and the counts equal to what the
 * properties claim.
 *
 * <p>Why a second decoder beside {@link BlockIterator}: ingestion checks each external file once, a few times
 * a second at most, so the JIT is slow to optimize whatever the check runs. Through the cursor's segment
 * accesses an unoptimized check took about a millisecond per 2,000 entries, taken from the writers' cores
 * (docs/benchmarks.md, "Ingestion while writing"). Array reads cost little at every compilation tier. The
 * format is the one {@link BlockBuilder} writes and {@link TableFormat} describes; the two decoders must agree,
 * which TableVerifyTest checks on random tables. Not thread-safe; one per check.
 */
final class EntryCheck {

    private final Path path;
    private final long globalSequence;
    private final IndexBlock index;
    /** The table's filter, or null if it has none. */
    private final BloomFilter filter;
    private final TableProperties properties;

    /** The entry just decoded and the one before it; the two buffers swap after each entry. */
    private byte[] key = new byte[64];
    private byte[] previous = new byte[64];
    private int keyLength;
    private int previousLength;
    private long trailer;
    private long previousTrailer;
    private boolean any;

    private long entries;
    private long deletions;

    /** Where the next varint is read; a field so that reading one returns only its value. */
    private int cursor;
    private long blockOffset;

    EntryCheck(Path path, long globalSequence, IndexBlock index, BloomFilter filter, TableProperties properties) {
        this.path = path;
        this.globalSequence = globalSequence;
        this.index = index;
        this.filter = filter;
        this.properties = properties;
    }

    /**
     * Checks the entries of data block {@code ordinal}, whose uncompressed contents are {@code data[0, size)}
     * and whose stored form begins at {@code fileOffset} (the offset every error names).
     */
    void block(int ordinal, long fileOffset, byte[] data, int size) throws CorruptionException {
        blockOffset = fileOffset;
        MemorySegment contents = MemorySegment.ofArray(data).asSlice(0, size);
        Block block = properties.dataBlockHashIndex ? Block.parseWithHashIndex(contents, path, fileOffset)
                : Block.parse(contents, path, fileOffset);
        int end = block.entriesEnd;
        int nextRestart = 0;
        int position = 0;
        boolean firstOfBlock = true;
        while (position < end) {
            cursor = position;
            int shared = length(data, end, "shared-prefix length", position);
            int unshared = length(data, end, "key length", position);
            int valueLength = length(data, end, "value length", position);
            // Restart points increase (Block.parse checks), so one that is not met here is never met: the
            // check after the walk reports it.
            boolean atRestart = nextRestart < block.restartCount && block.restart(nextRestart) == position;
            if (atRestart) {
                nextRestart++;
            }
            // Within a block an entry shares its prefix with the entry before; a restart entry shares nothing.
            int sharable = firstOfBlock || atRestart ? 0 : keyLength;
            if (shared > sharable) {
                throw corruption("entry at block offset " + position + " shares " + shared + " bytes with a "
                        + sharable + "-byte previous key");
            }
            long length = (long) shared + unshared;
            long valueEnd = (long) cursor + unshared + valueLength;
            if (length < TableFormat.KEY_TRAILER_SIZE) {
                throw corruption("key of " + length + " bytes at block offset " + position
                        + " is shorter than a trailer");
            }
            if (valueEnd > end) {
                throw corruption("entry at block offset " + position + " runs past the entry area");
            }
            decodeKey(data, shared, unshared, (int) length, position);
            boolean newUserKey = checkOrder(ordinal, firstOfBlock);
            if ((newUserKey || atRestart) && block.hasHashIndex()) {
                checkHashBucket(block, nextRestart - 1, position);
            }
            firstOfBlock = false;
            position = (int) valueEnd;
        }
        if (nextRestart != block.restartCount) {
            throw corruption("restart point " + nextRestart + " at block offset " + block.restart(nextRestart)
                    + " is not the start of an entry");
        }
        if (!firstOfBlock && index.compareSeparator(ordinal, userKey(key, keyLength), trailer) < 0) {
            throw outsideBlockRange(ordinal);
        }
    }

    private void decodeKey(byte[] data, int shared, int unshared, int length, int position)
            throws CorruptionException {
        byte[] into = previous;
        if (into.length < length) {
            into = new byte[Math.max(length, into.length * 2)];
        }
        System.arraycopy(key, 0, into, 0, shared);
        System.arraycopy(data, cursor, into, shared, unshared);
        previous = key;
        previousLength = keyLength;
        previousTrailer = trailer;
        key = into;
        keyLength = length;
        long stored = InternalKeys.readTrailer(key, length - TableFormat.KEY_TRAILER_SIZE);
        if (ValueKind.pointKindOrNull((int) (stored & 0xFF)) == null) {
            throw corruption("entry at block offset " + position + " has unknown kind " + (stored & 0xFF));
        }
        trailer = InternalKeys.present(stored, globalSequence);
    }

    /**
     * A key's bucket must name the restart interval it lies in, or be a collision. Lookups would still find
     * the key through a wrong bucket (they check what the index says), but the writer never writes one.
     */
    private void checkHashBucket(Block block, int restart, int position) throws CorruptionException {
        int bucket = block.hashBucket(KeyHash.hash64(userKey(key, keyLength)));
        if (bucket != restart && bucket != TableFormat.HASH_BUCKET_COLLISION) {
            throw corruption("the hash index sends the key at block offset " + position + " to bucket value "
                    + bucket + ", but it lies in restart interval " + restart);
        }
    }

    /** Checks the entry just decoded against the one before; returns whether it starts a new user key. */
    private boolean checkOrder(int ordinal, boolean firstOfBlock) throws CorruptionException {
        int userKeyLength = keyLength - TableFormat.KEY_TRAILER_SIZE;
        boolean newUserKey = true;
        if (any) {
            int c = Arrays.compareUnsigned(previous, 0, previousLength - TableFormat.KEY_TRAILER_SIZE,
                    key, 0, userKeyLength);
            if (c > 0 || (c == 0 && Long.compareUnsigned(trailer, previousTrailer) >= 0)) {
                throw corruption("entries out of order: " + InternalKeys.describe(userKey(key, keyLength), trailer)
                        + " does not come after " + InternalKeys.describe(userKey(previous, previousLength),
                        previousTrailer));
            }
            newUserKey = c != 0;
        } else {
            if (!isKey(properties.smallestUserKey, properties.smallestTrailer)) {
                throw corruption("first entry " + InternalKeys.describe(userKey(key, keyLength), trailer)
                        + " is not the smallest key the properties give");
            }
            any = true;
        }
        // Entries increase (checked above), so the block lies within (separator i-1, separator i] when its
        // first entry is above the one and its last at or below the other (checked when the block ends).
        if (firstOfBlock && ordinal > 0 && index.compareSeparator(ordinal - 1, userKey(key, keyLength), trailer) >= 0) {
            throw outsideBlockRange(ordinal);
        }
        // Versions of one user key are adjacent: one probe per user key.
        if (newUserKey && filter != null && !filter.mayContain(userKey(key, keyLength))) {
            throw corruption("the table's filter does not hold key " + InternalKeys.describe(userKey(key, keyLength),
                    trailer) + ": point lookups would miss it");
        }
        entries++;
        if (InternalKey.kindCode(trailer) == ValueKind.DELETE.code()) {
            deletions++;
        }
        return newUserKey;
    }

    /** Reads a varint length at {@link #cursor}; nearly all are one byte, read without the general decoder. */
    private int length(byte[] data, int end, String what, int entry) throws CorruptionException {
        if (cursor < end && data[cursor] >= 0) {
            return data[cursor++];
        }
        long packed = Varint.decodeInt(MemorySegment.ofArray(data), cursor, end);
        if (packed == Varint.MALFORMED) {
            throw corruption("bad " + what + " at block offset " + entry);
        }
        cursor += Varint.length(packed);
        return Varint.value(packed);
    }

    private static MemorySegment userKey(byte[] internalKey, int length) {
        return MemorySegment.ofArray(internalKey).asSlice(0, length - TableFormat.KEY_TRAILER_SIZE);
    }

    private CorruptionException outsideBlockRange(int ordinal) {
        return corruption("entry " + InternalKeys.describe(userKey(key, keyLength), trailer)
                + " lies outside the key range the index gives data block " + ordinal);
    }

    private CorruptionException corruption(String detail) {
        return new CorruptionException(path, blockOffset, detail);
    }

    /**
     * After the last block: the entry and deletion counts and the last entry must be what the properties claim.
     * Errors name {@code propertiesOffset}.
     */
    void finish(long propertiesOffset) throws CorruptionException {
        if (entries != properties.entryCount || deletions != properties.deletionCount || !any
                || !isKey(properties.largestUserKey, properties.largestTrailer)) {
            throw new CorruptionException(path, propertiesOffset, "data blocks hold " + entries + " entries ("
                    + deletions + " deletions) ending at "
                    + (any ? InternalKeys.describe(userKey(key, keyLength), trailer) : "nothing")
                    + ", the properties say " + properties);
        }
    }

    /** Whether the current entry is the given key, its stored trailer presented as the table presents it. */
    private boolean isKey(byte[] expectedUserKey, long expectedStoredTrailer) {
        return trailer == InternalKeys.present(expectedStoredTrailer, globalSequence) && Arrays.equals(key, 0,
                keyLength - TableFormat.KEY_TRAILER_SIZE, expectedUserKey, 0, expectedUserKey.length);
    }
}

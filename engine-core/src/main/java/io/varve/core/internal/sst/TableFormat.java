package io.varve.core.internal.sst;

import io.varve.core.sst.SstFileWriter;
import io.varve.base.Checksums;

/**
 * Every constant of the sorted-table format, in one place. {@code docs/formats.md} (section "Sorted table") describes the same
 * layout byte by byte; the two must change together, and any change to a stored layout needs a new
 * {@link #FORMAT_VERSION}.
 *
 * <pre>
 * A table file, front to back (all blocks contiguous, no padding):
 *
 *   offset 0
 *   +--------------------------------------------+
 *   | data block 0      | trailer (5 bytes)      |   entries in internal-key order
 *   | data block 1      | trailer                |
 *   | ...                                        |
 *   | filter block      | trailer                |   only when bloom bits per key > 0
 *   | properties block  | trailer                |
 *   | index block       | trailer                |   one entry per data block
 *   | footer (64 bytes)                          |
 *   +--------------------------------------------+  end of file
 *
 * Block trailer (after every block's stored contents):
 *   | compression type : u8 | masked CRC32C of (contents + type byte) : u32 LE |
 *
 * Data and index block contents (before compression):
 *   | entry 0 | entry 1 | ... | restart offset 0 : u32 LE | ... | restart count : u32 LE |
 *   entry = | shared : varint | unshared : varint | value length : varint | unshared key bytes | value |
 *   key   = internal key = | user key | trailer : u64 LE (sequence &lt;&lt; 8 | kind) |
 *
 * A data block of a version-3 table ends in a hash index after the restart count:
 *   | ... | restart count : u32 LE | bucket 0 : u8 | ... | bucket n-1 : u8 | n : u16 LE |
 *   bucket = restart index (0..253), HASH_BUCKET_COLLISION or HASH_BUCKET_EMPTY
 *
 * LZ4 block contents as stored: | uncompressed length : varint | LZ4 block-format bytes |
 *
 * Footer (64 bytes, fixed):
 *   0  index offset u64 | 8  index size u64 | 16 filter offset u64 | 24 filter size u64
 *   32 properties offset u64 | 40 properties size u64
 *   48 format version u32 (2, or 3 with block hash indexes) | 52 masked CRC32C of bytes [0, 52) u32 | 56 magic u64
 * </pre>
 *
 * All fixed-width integers are little-endian; varints are unsigned LEB128 (see {@link Varint}).
 */
public final class TableFormat {

    private TableFormat() {
    }

    // ---- File -------------------------------------------------------------------------------------------

    /** The newest layout this code reads and writes. */
    public static final int FORMAT_VERSION = 3;
    /**
     * Written for tables whose data blocks carry a hash index ({@link #PROP_DATA_BLOCK_HASH_INDEX}): older
     * readers refuse the version instead of misreading the blocks' ends.
     */
    public static final int HASH_INDEX_FORMAT_VERSION = 3;
    /**
     * Written for tables without block hash indexes: version 1 plus the optional range-deletion property, so
     * such tables stay readable by builds that predate hash indexes.
     */
    public static final int PLAIN_FORMAT_VERSION = 2;
    /** The oldest layout this code still reads; version 1 has no range deletions. */
    public static final int OLDEST_READABLE_VERSION = 1;

    /**
     * The last 8 bytes of every table: the ASCII bytes {@code "VARVESST"} in file order, which is this value
     * when read as a little-endian u64.
     */
    public static final long MAGIC = 0x5453_5345_5652_4156L;

    // ---- Footer -----------------------------------------------------------------------------------------

    public static final int FOOTER_SIZE = 64;
    public static final int FOOTER_INDEX_OFFSET = 0;
    public static final int FOOTER_INDEX_SIZE = 8;
    public static final int FOOTER_FILTER_OFFSET = 16;
    public static final int FOOTER_FILTER_SIZE = 24;
    public static final int FOOTER_PROPERTIES_OFFSET = 32;
    public static final int FOOTER_PROPERTIES_SIZE = 40;
    public static final int FOOTER_VERSION = 48;
    /** The footer's own checksum covers bytes [0, FOOTER_CHECKSUM). */
    public static final int FOOTER_CHECKSUM = 52;
    public static final int FOOTER_MAGIC = 56;

    // ---- Block trailer ----------------------------------------------------------------------------------

    /** Compression type byte + masked CRC32C. */
    public static final int BLOCK_TRAILER_SIZE = 5;
    public static final byte COMPRESSION_NONE = 0;
    /** Contents are a varint uncompressed length followed by an LZ4 block (not frame). */
    public static final byte COMPRESSION_LZ4 = 1;

    /**
     * Added to the rotated CRC so that a checksum stored inside checksummed data does not checksum to a
     * fixed point (the LevelDB masking scheme); see {@link Checksums#mask}.
     */
    public static final int CRC_MASK_DELTA = Checksums.MASK_DELTA;

    /**
     * LZ4 encodes a run of n output bytes in at least about n / 255 input bytes, so a block whose stated
     * uncompressed length exceeds this multiple of its compressed length is damaged.
     */
    public static final int LZ4_MAX_EXPANSION = 256;

    /** The largest contents of one block, compressed or not, so that every offset inside fits an int. */
    public static final int MAX_BLOCK_CONTENTS_SIZE = 1 << 30;

    // ---- Block contents ---------------------------------------------------------------------------------

    /** Width of one restart offset and of the restart count at a block's end. */
    public static final int RESTART_ENTRY_SIZE = 4;
    /** Every index entry is a restart point, so the reader can binary-search separators directly. */
    public static final int INDEX_RESTART_INTERVAL = 1;
    /** Every stored key ends with the 8-byte trailer. */
    public static final int KEY_TRAILER_SIZE = 8;
    /**
     * The trailer given to a shortened index separator: the largest unsigned value, which sorts first among
     * all entries of its user key. It never appears on a data entry (kind 0xFF is not a value kind).
     */
    public static final long SEPARATOR_TRAILER = -1L;

    // ---- Data block hash index (format 3) ----------------------------------------------------------------

    /** Width of the bucket count that ends a data block carrying a hash index (u16 LE). */
    public static final int HASH_INDEX_COUNT_SIZE = 2;
    /** The most buckets one block's index can have: the count is a u16. */
    public static final int HASH_INDEX_MAX_BUCKETS = 65535;
    /**
     * A block with more restart points than this gets no buckets (count 0): a bucket names a restart index in
     * one byte, and the two largest byte values are the markers below.
     */
    public static final int HASH_INDEX_MAX_RESTARTS = 254;
    /** Bucket value: keys of more than one restart interval hash here, so the reader binary-searches. */
    public static final int HASH_BUCKET_COLLISION = 254;
    /** Bucket value: no key of the block hashes here. */
    public static final int HASH_BUCKET_EMPTY = 255;

    // ---- Bloom filter -----------------------------------------------------------------------------------

    /** Filters never have fewer bits than this, so tiny tables still get a useful false-positive rate. */
    public static final int BLOOM_MIN_BITS = 64;
    public static final int BLOOM_MIN_PROBES = 1;
    public static final int BLOOM_MAX_PROBES = 30;
    /** The bit array never exceeds this many bytes (keeps the array index an int). */
    public static final int BLOOM_MAX_BYTES = 1 << 29;

    /** Key hash ({@link KeyHash}): seed and odd multipliers. Stored filters depend on them: never change. */
    public static final long HASH_SEED = 0x5641_5256_4553_5354L;
    public static final long HASH_MULTIPLIER_1 = 0x9E37_79B9_7F4A_7C15L;
    public static final long HASH_MULTIPLIER_2 = 0xC6A4_A793_5BD1_E995L;
    public static final long HASH_FINAL_MULTIPLIER_1 = 0xBF58_476D_1CE4_E5B9L;
    public static final long HASH_FINAL_MULTIPLIER_2 = 0x94D0_49BB_1331_11EBL;

    // ---- Properties block -------------------------------------------------------------------------------

    public static final String PROP_ENTRIES = "varve.entries";
    public static final String PROP_DELETIONS = "varve.deletions";
    public static final String PROP_SMALLEST_KEY = "varve.smallest.key";
    public static final String PROP_LARGEST_KEY = "varve.largest.key";
    public static final String PROP_SMALLEST_SEQUENCE = "varve.smallest.sequence";
    public static final String PROP_LARGEST_SEQUENCE = "varve.largest.sequence";
    public static final String PROP_RAW_KEY_BYTES = "varve.raw.key.bytes";
    public static final String PROP_RAW_VALUE_BYTES = "varve.raw.value.bytes";
    public static final String PROP_DATA_BLOCKS = "varve.data.blocks";
    public static final String PROP_COMPRESSED_DATA_BLOCKS = "varve.data.compressed.blocks";
    public static final String PROP_DATA_BYTES = "varve.data.bytes";
    public static final String PROP_UNCOMPRESSED_DATA_BYTES = "varve.data.uncompressed.bytes";
    public static final String PROP_BLOOM_BITS_PER_KEY = "varve.bloom.bits.per.key";
    public static final String PROP_BLOCK_SIZE = "varve.block.size";
    public static final String PROP_RESTART_INTERVAL = "varve.restart.interval";
    public static final String PROP_CREATION_TIME = "varve.creation.time.millis";
    public static final String PROP_CREATOR = "varve.creator";
    /**
     * Optional: the name of the column family an external table was written for ({@link SstFileWriter});
     * ingestion refuses the table for any other family. Tables the engine writes itself leave it out.
     */
    public static final String PROP_COLUMN_FAMILY = "varve.column.family";

    /** Optional (version 2): the table's range tombstones, encoded by {@link RangeDeletionBlock}. */
    public static final String PROP_RANGE_DELETIONS = "varve.range.deletions";

    /**
     * Optional (version 3): the number 1 when every data block ends in a hash index; absent when none does.
     * Present exactly in tables of {@link #HASH_INDEX_FORMAT_VERSION}.
     */
    public static final String PROP_DATA_BLOCK_HASH_INDEX = "varve.data.block.hash.index";

    /** Value of {@link #PROP_CREATOR} written by this code. */
    public static final String CREATOR = "varve engine-core table writer, format 2";

    // ---- Defaults and writer policy (not part of the stored layout) --------------------------------------

    public static final int DEFAULT_BLOCK_SIZE = 4 * 1024;
    public static final int DEFAULT_RESTART_INTERVAL = 16;
    public static final int DEFAULT_BLOOM_BITS_PER_KEY = 10;
    public static final int MAX_BLOOM_BITS_PER_KEY = 64;
    /** Upper bound accepted for the target block size option. */
    public static final int MAX_TARGET_BLOCK_SIZE = 64 * 1024 * 1024;

    /**
     * A data block is stored compressed only when that saves at least 1/8 (12.5%) of its bytes; smaller
     * savings are not worth the decompression on every cache miss.
     */
    public static final int MIN_COMPRESSION_SAVING_DIVISOR = 8;

    /** The writer gathers finished blocks and hands them to the file in writes of about this size. */
    public static final int WRITE_BUFFER_SIZE = 256 * 1024;

    /** Largest user key plus value accepted for one entry, so that one entry always fits a block. */
    public static final int MAX_ENTRY_SIZE = 256 * 1024 * 1024;
}

package io.varve.core.internal.sst;

import io.varve.base.Checksums;
import io.varve.base.Varint;
import io.varve.base.fs.WritableFile;
import io.varve.base.lz4.Lz4BlockCompressor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The back half of a table writer: turns finished block contents into stored blocks (LZ4-compressed when
 * allowed and worth it, followed by the type byte and masked CRC32C trailer of {@link TableFormat}), gathers
 * them and hands them to the file in writes of about {@link TableFormat#WRITE_BUFFER_SIZE}. It knows the file
 * offset of every byte and remembers where each data block went, so the index can be built once the data
 * blocks are all written.
 *
 * <p>Not thread-safe, but it may change threads: a pipelined writer gives it to its encoding thread for the
 * data blocks and takes it back (after joining that thread) for the filter, properties, index and footer.
 */
final class BlockEncoder {

    private final WritableFile file;
    /** Null when data blocks are stored uncompressed; kept for the table's life so its hash table is reused. */
    private final Lz4BlockCompressor compressor;
    private final ByteBuilder pendingWrites = new ByteBuilder(TableFormat.WRITE_BUFFER_SIZE);
    private byte[] compressed = new byte[0];
    private final CRC32C crc = new CRC32C();

    /** File offset of the next byte to be written (written to the file or still pending). */
    private long offset;

    private long[] dataBlockOffsets = new long[256];
    private int[] dataBlockSizes = new int[256];
    private int dataBlockCount;
    private long compressedDataBlockCount;
    private long dataBytes;

    BlockEncoder(WritableFile file, boolean compression) {
        this.file = file;
        this.compressor = compression ? new Lz4BlockCompressor() : null;
    }

    /** Stores a data block (compressed when the table compresses and that saves enough) and remembers where. */
    void writeDataBlock(byte[] contents, int from, int length) throws IOException {
        long before = offset;
        BlockHandle handle = writeBlock(contents, from, length, compressor != null);
        if (dataBlockCount == dataBlockOffsets.length) {
            dataBlockOffsets = Arrays.copyOf(dataBlockOffsets, dataBlockCount * 2);
            dataBlockSizes = Arrays.copyOf(dataBlockSizes, dataBlockCount * 2);
        }
        dataBlockOffsets[dataBlockCount] = handle.offset();
        dataBlockSizes[dataBlockCount] = handle.size();
        dataBlockCount++;
        dataBytes += offset - before;
    }

    int dataBlockCount() {
        return dataBlockCount;
    }

    /** Where the {@code index}th data block was stored. */
    BlockHandle dataBlock(int index) {
        return new BlockHandle(dataBlockOffsets[index], dataBlockSizes[index]);
    }

    long compressedDataBlockCount() {
        return compressedDataBlockCount;
    }

    /** Bytes the data blocks take in the file, trailers included. */
    long dataBytes() {
        return dataBytes;
    }

    long offset() {
        return offset;
    }

    /**
     * Appends {@code contents[from, from + length)} (LZ4-compressed when {@code mayCompress} and worth it) and
     * its trailer to the pending writes, handing them to the file when enough has gathered.
     */
    BlockHandle writeBlock(byte[] contents, int from, int length, boolean mayCompress) throws IOException {
        byte type = TableFormat.COMPRESSION_NONE;
        byte[] stored = contents;
        int storedFrom = from;
        int storedLength = length;
        if (mayCompress) {
            int bound = Varint.MAX_INT_LENGTH + Lz4BlockCompressor.maxCompressedLength(length);
            if (compressed.length < bound) {
                compressed = new byte[bound];
            }
            int header = Varint.write(compressed, 0, length);
            int compressedLength = compressor.compress(contents, from, length, compressed, header);
            if (header + compressedLength <= length - length / TableFormat.MIN_COMPRESSION_SAVING_DIVISOR) {
                type = TableFormat.COMPRESSION_LZ4;
                stored = compressed;
                storedFrom = 0;
                storedLength = header + compressedLength;
                compressedDataBlockCount++;
            }
        }
        if (storedLength > TableFormat.MAX_BLOCK_CONTENTS_SIZE) {
            throw new IllegalStateException("block of " + storedLength + " bytes exceeds the format limit");
        }
        crc.reset();
        crc.update(stored, storedFrom, storedLength);
        crc.update(type);
        BlockHandle handle = new BlockHandle(offset, storedLength);
        pendingWrites.append(stored, storedFrom, storedLength);
        pendingWrites.appendByte(type);
        pendingWrites.appendFixed32(Checksums.mask((int) crc.getValue()));
        offset += storedLength + TableFormat.BLOCK_TRAILER_SIZE;
        if (pendingWrites.size() >= TableFormat.WRITE_BUFFER_SIZE) {
            flush();
        }
        return handle;
    }

    /** Appends bytes that are not a block (the footer). */
    void appendRaw(byte[] bytes) {
        pendingWrites.append(bytes, 0, bytes.length);
        offset += bytes.length;
    }

    /** Hands every pending byte to the file. */
    void flush() throws IOException {
        if (pendingWrites.size() > 0) {
            file.write(ByteBuffer.wrap(pendingWrites.array(), 0, pendingWrites.size()));
            pendingWrites.clear();
        }
    }
}

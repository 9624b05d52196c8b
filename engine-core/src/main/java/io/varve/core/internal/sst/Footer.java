package io.varve.core.internal.sst;

import io.varve.base.Checksums;
import static io.varve.core.internal.sst.TableFormat.*;

import io.varve.base.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The fixed-size end of a table: where the index, filter and properties blocks are, the format version, a
 * checksum of those fields, and the magic number. A filter handle of (0, 0) means "no filter". The version
 * says how to read the data blocks: {@link TableFormat#HASH_INDEX_FORMAT_VERSION} when they end in hash
 * indexes.
 */
record Footer(BlockHandle index, BlockHandle filter, BlockHandle properties, int version) {

    private static final ValueLayout.OfLong FIXED64 =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static final BlockHandle NO_FILTER = new BlockHandle(0, 0);

    boolean hasFilter() {
        return !filter.equals(NO_FILTER);
    }

    byte[] encode() {
        ByteBuilder out = new ByteBuilder(FOOTER_SIZE);
        out.appendFixed64(index.offset());
        out.appendFixed64(index.size());
        out.appendFixed64(filter.offset());
        out.appendFixed64(filter.size());
        out.appendFixed64(properties.offset());
        out.appendFixed64(properties.size());
        out.appendFixed32(version);
        out.appendFixed32(Checksums.mask(Checksums.crc32c(out.array(), 0, FOOTER_CHECKSUM)));
        out.appendFixed64(MAGIC);
        return out.toArray();
    }

    /**
     * Reads and checks the footer at the end of {@code file}: size, magic, checksum, version, and that every
     * handle lies before the footer. Layout between blocks is checked by the reader once it has them all.
     */
    static Footer read(MemorySegment file, Path path) throws CorruptionException {
        long fileSize = file.byteSize();
        if (fileSize < FOOTER_SIZE) {
            throw new CorruptionException(path, 0, "file of " + fileSize + " bytes is too short for a table");
        }
        long start = fileSize - FOOTER_SIZE;
        long magic = file.get(FIXED64, start + FOOTER_MAGIC);
        if (magic != MAGIC) {
            throw new CorruptionException(path, start + FOOTER_MAGIC,
                    "bad magic number 0x" + Long.toHexString(magic) + ": not a table or truncated");
        }
        int stored = file.get(Block.FIXED32, start + FOOTER_CHECKSUM);
        int actual = Checksums.mask(Checksums.crc32c(file, start, FOOTER_CHECKSUM));
        if (stored != actual) {
            throw new CorruptionException(path, start, "footer checksum mismatch");
        }
        int version = file.get(Block.FIXED32, start + FOOTER_VERSION);
        if (version < TableFormat.OLDEST_READABLE_VERSION || version > FORMAT_VERSION) {
            throw new CorruptionException(path, start + FOOTER_VERSION, "unsupported table format version "
                    + version + " (this reader knows " + TableFormat.OLDEST_READABLE_VERSION + " to "
                    + FORMAT_VERSION + ")");
        }
        BlockHandle index = handle(file, start, FOOTER_INDEX_OFFSET, FOOTER_INDEX_SIZE, path);
        BlockHandle filter = handle(file, start, FOOTER_FILTER_OFFSET, FOOTER_FILTER_SIZE, path);
        BlockHandle properties = handle(file, start, FOOTER_PROPERTIES_OFFSET, FOOTER_PROPERTIES_SIZE, path);
        return new Footer(index, filter, properties, version);
    }

    private static BlockHandle handle(MemorySegment file, long footerStart, int offsetField, int sizeField,
                                      Path path) throws CorruptionException {
        long offset = file.get(FIXED64, footerStart + offsetField);
        long size = file.get(FIXED64, footerStart + sizeField);
        boolean fits = offset >= 0 && size >= 0 && size <= MAX_BLOCK_CONTENTS_SIZE
                && offset <= footerStart - BLOCK_TRAILER_SIZE - size;
        boolean noFilter = offsetField == FOOTER_FILTER_OFFSET && offset == 0 && size == 0;
        if (!fits && !noFilter) {
            throw new CorruptionException(path, footerStart + offsetField, "block handle [" + offset + ", +"
                    + size + ") does not fit before the footer at " + footerStart);
        }
        return new BlockHandle(offset, (int) size);
    }
}

package io.varve.core.internal.sst;

import io.varve.base.CorruptionException;
import io.varve.base.Varint;
import io.varve.core.internal.rangedel.RangeTombstone;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The range-deletion block of a table (format version 2), stored as the value of the
 * {@link TableFormat#PROP_RANGE_DELETIONS} property so that the properties block's checksum covers it:
 * <pre>
 *   | count : varint | count times: | begin length : varint | begin | end length : varint | end | sequence : u64 LE |
 * </pre>
 * Tombstones are fragments (non-overlapping ranges, see {@code FragmentedTombstones}), in begin order, newest
 * first within one fragment. Absent when the table has none; version-1 tables never have it.
 */
final class RangeDeletionBlock {

    private static final ValueLayout.OfLong SEQUENCE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private RangeDeletionBlock() {
    }

    static byte[] encode(List<RangeTombstone> tombstones) {
        ByteBuilder out = new ByteBuilder(64);
        out.appendVarint(tombstones.size());
        for (RangeTombstone t : tombstones) {
            out.appendVarint(t.begin().length);
            out.append(t.begin(), 0, t.begin().length);
            out.appendVarint(t.end().length);
            out.append(t.end(), 0, t.end().length);
            out.appendFixed64(t.sequence());
        }
        return out.toArray();
    }

    static List<RangeTombstone> decode(MemorySegment contents, Path file, long blockOffset) throws CorruptionException {
        long end = contents.byteSize();
        long[] position = {0};
        int count = readLength(contents, position, end, file, blockOffset);
        List<RangeTombstone> result = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            byte[] begin = readBytes(contents, position, end, file, blockOffset);
            byte[] stop = readBytes(contents, position, end, file, blockOffset);
            if (position[0] + Long.BYTES > end) {
                throw new CorruptionException(file, blockOffset, "range deletion " + i + " runs past its block");
            }
            long sequence = contents.get(SEQUENCE, position[0]);
            position[0] += Long.BYTES;
            if (Arrays.compareUnsigned(begin, stop) >= 0 || sequence < 0) {
                throw new CorruptionException(file, blockOffset, "range deletion " + i + " is malformed");
            }
            result.add(new RangeTombstone(begin, stop, sequence));
        }
        if (position[0] != end) {
            throw new CorruptionException(file, blockOffset, "trailing bytes after " + count + " range deletions");
        }
        return result;
    }

    private static int readLength(MemorySegment contents, long[] position, long end, Path file, long blockOffset)
            throws CorruptionException {
        long decoded = Varint.decodeInt(contents, position[0], end);
        if (decoded == Varint.MALFORMED) {
            throw new CorruptionException(file, blockOffset, "bad varint in range deletions at " + position[0]);
        }
        position[0] += Varint.length(decoded);
        return (int) Varint.value(decoded);
    }

    private static byte[] readBytes(MemorySegment contents, long[] position, long end, Path file, long blockOffset)
            throws CorruptionException {
        int length = readLength(contents, position, end, file, blockOffset);
        if (length > end - position[0]) {
            throw new CorruptionException(file, blockOffset, "range deletion key runs past its block");
        }
        byte[] bytes = contents.asSlice(position[0], length).toArray(ValueLayout.JAVA_BYTE);
        position[0] += length;
        return bytes;
    }
}

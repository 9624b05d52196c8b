package io.varve.core.internal.sst;

import io.varve.base.Varint;
import static io.varve.core.internal.sst.TableFormat.*;

import io.varve.base.CorruptionException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import io.varve.core.internal.rangedel.RangeTombstone;

/**
 * Encodes and decodes the properties block: a sequence of records
 * {@code | name length varint | name (ASCII) | value length varint | value |}. Numbers are varints inside
 * the value; keys are internal keys (user key + 8-byte little-endian trailer); text is UTF-8. Readers skip
 * names they do not know, so later writers may add properties without a format version bump.
 */
final class PropertiesBlock {

    private PropertiesBlock() {
    }

    static byte[] encode(TableProperties p) {
        return encode(p, List.of());
    }

    /** With the table's range tombstones as the {@link TableFormat#PROP_RANGE_DELETIONS} property, if any. */
    static byte[] encode(TableProperties p, List<RangeTombstone> rangeDeletions) {
        ByteBuilder out = new ByteBuilder(512);
        putNumber(out, PROP_ENTRIES, p.entryCount);
        putNumber(out, PROP_DELETIONS, p.deletionCount);
        putBytes(out, PROP_SMALLEST_KEY, internalKey(p.smallestUserKey, p.smallestTrailer));
        putBytes(out, PROP_LARGEST_KEY, internalKey(p.largestUserKey, p.largestTrailer));
        putNumber(out, PROP_SMALLEST_SEQUENCE, p.smallestSequence);
        putNumber(out, PROP_LARGEST_SEQUENCE, p.largestSequence);
        putNumber(out, PROP_RAW_KEY_BYTES, p.rawKeyBytes);
        putNumber(out, PROP_RAW_VALUE_BYTES, p.rawValueBytes);
        putNumber(out, PROP_DATA_BLOCKS, p.dataBlockCount);
        putNumber(out, PROP_COMPRESSED_DATA_BLOCKS, p.compressedDataBlockCount);
        putNumber(out, PROP_DATA_BYTES, p.dataBytes);
        putNumber(out, PROP_UNCOMPRESSED_DATA_BYTES, p.uncompressedDataBytes);
        putNumber(out, PROP_BLOOM_BITS_PER_KEY, p.bloomBitsPerKey);
        putNumber(out, PROP_BLOCK_SIZE, p.blockSize);
        putNumber(out, PROP_RESTART_INTERVAL, p.restartInterval);
        putNumber(out, PROP_CREATION_TIME, p.creationTimeMillis);
        putBytes(out, PROP_CREATOR, p.creator.getBytes(StandardCharsets.UTF_8));
        if (p.columnFamily != null) {
            putBytes(out, PROP_COLUMN_FAMILY, p.columnFamily.getBytes(StandardCharsets.UTF_8));
        }
        if (p.dataBlockHashIndex) {
            putNumber(out, PROP_DATA_BLOCK_HASH_INDEX, 1);
        }
        if (!rangeDeletions.isEmpty()) {
            putBytes(out, TableFormat.PROP_RANGE_DELETIONS, RangeDeletionBlock.encode(rangeDeletions));
        }
        return out.toArray();
    }

    /**
     * Decodes a properties block, reporting anything malformed or missing as corruption at
     * {@code blockOffset}.
     */
    static TableProperties decode(MemorySegment contents, long fileSize, Path file, long blockOffset)
            throws CorruptionException {
        Map<String, MemorySegment> values = values(contents, file, blockOffset);
        Reader r = new Reader(values, file, blockOffset);
        byte[] smallest = r.bytes(PROP_SMALLEST_KEY);
        byte[] largest = r.bytes(PROP_LARGEST_KEY);
        if (smallest.length < KEY_TRAILER_SIZE || largest.length < KEY_TRAILER_SIZE) {
            throw new CorruptionException(file, blockOffset, "smallest or largest key shorter than a trailer");
        }
        TableProperties properties = new TableProperties(
                r.number(PROP_ENTRIES), r.number(PROP_DELETIONS),
                Arrays.copyOf(smallest, smallest.length - KEY_TRAILER_SIZE),
                InternalKeys.readTrailer(smallest, smallest.length - KEY_TRAILER_SIZE),
                Arrays.copyOf(largest, largest.length - KEY_TRAILER_SIZE),
                InternalKeys.readTrailer(largest, largest.length - KEY_TRAILER_SIZE),
                r.number(PROP_SMALLEST_SEQUENCE), r.number(PROP_LARGEST_SEQUENCE),
                r.number(PROP_RAW_KEY_BYTES), r.number(PROP_RAW_VALUE_BYTES),
                r.number(PROP_DATA_BLOCKS), r.number(PROP_COMPRESSED_DATA_BLOCKS),
                r.number(PROP_DATA_BYTES), r.number(PROP_UNCOMPRESSED_DATA_BYTES),
                r.smallInt(PROP_BLOOM_BITS_PER_KEY), r.smallInt(PROP_BLOCK_SIZE),
                r.smallInt(PROP_RESTART_INTERVAL), r.number(PROP_CREATION_TIME),
                new String(r.bytes(PROP_CREATOR), StandardCharsets.UTF_8), r.optionalText(PROP_COLUMN_FAMILY),
                r.flag(PROP_DATA_BLOCK_HASH_INDEX), fileSize);
        if (properties.entryCount < 1 || properties.deletionCount > properties.entryCount
                || !properties.sequencesConsistent() || properties.dataBlockCount < 1
                || properties.compressedDataBlockCount > properties.dataBlockCount) {
            throw new CorruptionException(file, blockOffset, "inconsistent properties: " + properties);
        }
        return properties;
    }

    /** The range tombstones a version-2 table records; empty when it records none. */
    static List<RangeTombstone> rangeDeletions(MemorySegment contents, Path file, long blockOffset)
            throws CorruptionException {
        MemorySegment value = values(contents, file, blockOffset).get(TableFormat.PROP_RANGE_DELETIONS);
        return value == null ? List.of() : RangeDeletionBlock.decode(value, file, blockOffset);
    }

    private static Map<String, MemorySegment> values(MemorySegment contents, Path file, long blockOffset)
            throws CorruptionException {
        Map<String, MemorySegment> values = new HashMap<>();
        long position = 0;
        long end = contents.byteSize();
        while (position < end) {
            long nameLength = Varint.decodeInt(contents, position, end);
            if (nameLength == Varint.MALFORMED) {
                throw new CorruptionException(file, blockOffset, "bad property name length at " + position);
            }
            long nameStart = position + Varint.length(nameLength);
            long nameEnd = nameStart + Varint.value(nameLength);
            if (nameEnd > end) {
                throw new CorruptionException(file, blockOffset, "property name runs past the block");
            }
            long valueLength = Varint.decodeInt(contents, nameEnd, end);
            if (valueLength == Varint.MALFORMED) {
                throw new CorruptionException(file, blockOffset, "bad property value length at " + nameEnd);
            }
            long valueStart = nameEnd + Varint.length(valueLength);
            long valueEnd = valueStart + Varint.value(valueLength);
            if (valueEnd > end) {
                throw new CorruptionException(file, blockOffset, "property value runs past the block");
            }
            String name = new String(contents.asSlice(nameStart, nameEnd - nameStart).toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.US_ASCII);
            if (values.put(name, contents.asSlice(valueStart, valueEnd - valueStart)) != null) {
                throw new CorruptionException(file, blockOffset, "property " + name + " appears twice");
            }
            position = valueEnd;
        }
        return values;
    }

    private static byte[] internalKey(byte[] userKey, long trailer) {
        byte[] key = Arrays.copyOf(userKey, userKey.length + KEY_TRAILER_SIZE);
        InternalKeys.writeTrailer(key, userKey.length, trailer);
        return key;
    }

    private static void putNumber(ByteBuilder out, String name, long value) {
        byte[] encoded = new byte[Varint.MAX_LONG_LENGTH];
        int length = Varint.write(encoded, 0, value);
        putBytes(out, name, Arrays.copyOf(encoded, length));
    }

    private static void putBytes(ByteBuilder out, String name, byte[] value) {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        out.appendVarint(nameBytes.length);
        out.append(nameBytes, 0, nameBytes.length);
        out.appendVarint(value.length);
        out.append(value, 0, value.length);
    }

    /** Looks up required properties, turning absence or bad encoding into corruption. */
    private record Reader(Map<String, MemorySegment> values, Path file, long blockOffset) {

        MemorySegment required(String name) throws CorruptionException {
            MemorySegment value = values.get(name);
            if (value == null) {
                throw new CorruptionException(file, blockOffset, "missing property " + name);
            }
            return value;
        }

        long number(String name) throws CorruptionException {
            MemorySegment value = required(name);
            long number = Varint.decodeLong(value, 0, value.byteSize());
            if (number == Varint.MALFORMED || Varint.encodedLength(number) != value.byteSize()) {
                throw new CorruptionException(file, blockOffset, "property " + name + " is not a number");
            }
            return number;
        }

        int smallInt(String name) throws CorruptionException {
            long number = number(name);
            if (number > Integer.MAX_VALUE) {
                throw new CorruptionException(file, blockOffset, "property " + name + " too large: " + number);
            }
            return (int) number;
        }

        byte[] bytes(String name) throws CorruptionException {
            return required(name).toArray(ValueLayout.JAVA_BYTE);
        }

        /** An optional property that, when present, must be the number 1. */
        boolean flag(String name) throws CorruptionException {
            if (!values.containsKey(name)) {
                return false;
            }
            if (number(name) != 1) {
                throw new CorruptionException(file, blockOffset, "property " + name + " is not 1");
            }
            return true;
        }

        String optionalText(String name) {
            MemorySegment value = values.get(name);
            return value == null ? null : new String(value.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }
    }
}

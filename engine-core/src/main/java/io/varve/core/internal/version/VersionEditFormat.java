package io.varve.core.internal.version;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The encoding of a {@link VersionEdit}, and of the manifest record that carries one edit or a group of them
 * (manifest records use the WAL's record framing, so they are checksummed and torn tails are detected the
 * same way). Described in docs/formats.md, section "Manifest".
 *
 * <pre>
 *   record := edit | TAG_EDIT_GROUP count (varint) (length (varint) edit){count}
 *   edit  := field*
 *   field := tag (varint) value
 *   TAG_LOG_NUMBER       varint64
 *   TAG_NEXT_FILE_NUMBER varint64
 *   TAG_LAST_SEQUENCE    varint64
 *   TAG_ADD_TABLE        level (varint), file number (varint64), file size (varint64),
 *                        smallest key (varint length + bytes), smallest trailer (varint64),
 *                        largest key (varint length + bytes), largest trailer (varint64),
 *                        smallest sequence (varint64), largest sequence (varint64),
 *                        global sequence + 1 (varint64; 0 = none)
 *   TAG_REMOVE_TABLE     level (varint), file number (varint64)
 *   TAG_COLUMN_FAMILY    column family id (varint); absent = 0, the default column family
 *   TAG_ADD_COLUMN_FAMILY    name (varint length + UTF-8 bytes): the edit creates its column family
 *   TAG_DROP_COLUMN_FAMILY   no value: the edit drops its column family
 *   TAG_NEXT_COLUMN_FAMILY   varint: ids below it were handed out (never reused)
 * </pre>
 *
 * A group holds the edits of one append to the manifest (one sync), so that every append is exactly one
 * record: the reader can then tell the last append, whose sync may not have completed, from the ones before
 * it ({@link Manifest#read}).
 *
 * Unknown tags are corruption: a newer format must bump the format version kept in {@link #FORMAT_VERSION}.
 */
public final class VersionEditFormat {

    public static final int TAG_LOG_NUMBER = 1;
    public static final int TAG_NEXT_FILE_NUMBER = 2;
    public static final int TAG_LAST_SEQUENCE = 3;
    public static final int TAG_ADD_TABLE = 4;
    public static final int TAG_REMOVE_TABLE = 5;
    /** Written as the first field of every manifest's first edit; a manifest of another version is refused. */
    public static final int TAG_FORMAT_VERSION = 6;
    public static final int TAG_COLUMN_FAMILY = 7;
    public static final int TAG_ADD_COLUMN_FAMILY = 8;
    public static final int TAG_DROP_COLUMN_FAMILY = 9;
    public static final int TAG_NEXT_COLUMN_FAMILY = 10;
    /** First field of a record holding several edits; never inside an edit. */
    public static final int TAG_EDIT_GROUP = 11;
    /**
     * Version 2 added the column-family tags, version 3 edit groups; version 1 manifests (no column families)
     * and version 2 ones still open.
     */
    public static final int FORMAT_VERSION = 3;
    public static final int OLDEST_READABLE_FORMAT_VERSION = 1;

    /** A manifest record that does not decode. */
    public static final class MalformedEditException extends Exception {
        MalformedEditException(String message) {
            super(message);
        }
    }

    private VersionEditFormat() {
    }

    public static byte[] encode(VersionEdit edit, boolean withFormatVersion) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        if (withFormatVersion) {
            putVarint(out, TAG_FORMAT_VERSION);
            putVarint(out, FORMAT_VERSION);
        }
        if (edit.columnFamily() != 0) {
            putVarint(out, TAG_COLUMN_FAMILY);
            putVarint(out, edit.columnFamily());
        }
        if (edit.addedColumnFamily() != null) {
            putVarint(out, TAG_ADD_COLUMN_FAMILY);
            putBytes(out, edit.addedColumnFamily().getBytes(StandardCharsets.UTF_8));
        }
        if (edit.droppedColumnFamily()) {
            putVarint(out, TAG_DROP_COLUMN_FAMILY);
        }
        putField(out, TAG_NEXT_COLUMN_FAMILY, edit.nextColumnFamily());
        putField(out, TAG_LOG_NUMBER, edit.logNumber());
        putField(out, TAG_NEXT_FILE_NUMBER, edit.nextFileNumber());
        putField(out, TAG_LAST_SEQUENCE, edit.lastSequence());
        for (VersionEdit.Removed removed : edit.removed()) {
            putVarint(out, TAG_REMOVE_TABLE);
            putVarint(out, removed.level());
            putVarint(out, removed.fileNumber());
        }
        for (VersionEdit.Added added : edit.added()) {
            TableMeta t = added.table();
            putVarint(out, TAG_ADD_TABLE);
            putVarint(out, added.level());
            putVarint(out, t.fileNumber());
            putVarint(out, t.fileSize());
            putBytes(out, t.smallestKey());
            putVarint(out, t.smallestTrailer());
            putBytes(out, t.largestKey());
            putVarint(out, t.largestTrailer());
            putVarint(out, t.smallestSequence());
            putVarint(out, t.largestSequence());
            putVarint(out, t.globalSequence() + 1);
        }
        return out.toByteArray();
    }

    /** One manifest record holding {@code edits}, in order: the edit itself when there is one, else a group. */
    public static byte[] encodeRecord(List<VersionEdit> edits) {
        if (edits.size() == 1) {
            return encode(edits.getFirst(), false);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * edits.size());
        putVarint(out, TAG_EDIT_GROUP);
        putVarint(out, edits.size());
        for (VersionEdit edit : edits) {
            putBytes(out, encode(edit, false));
        }
        return out.toByteArray();
    }

    /** The edits of one manifest record ({@link #encodeRecord}, or a single edit with the format version). */
    public static List<VersionEdit> decodeRecord(byte[] payload) throws MalformedEditException {
        Reader in = new Reader(payload);
        if (payload.length == 0 || in.varint() != TAG_EDIT_GROUP) {
            return List.of(decode(payload));
        }
        long count = in.varint();
        if (count < 2 || count > payload.length) {
            throw new MalformedEditException("edit group of " + count + " edits in a record of " + payload.length
                    + " bytes");
        }
        List<VersionEdit> edits = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            edits.add(decode(in.bytes()));
        }
        if (in.position != payload.length) {
            throw new MalformedEditException("edit group ends at byte " + in.position + " of " + payload.length);
        }
        return edits;
    }

    public static VersionEdit decode(byte[] payload) throws MalformedEditException {
        Reader in = new Reader(payload);
        VersionEdit edit = new VersionEdit();
        while (in.position < payload.length) {
            long tag = in.varint();
            switch ((int) tag) {
                case TAG_FORMAT_VERSION -> {
                    long version = in.varint();
                    if (version < OLDEST_READABLE_FORMAT_VERSION || version > FORMAT_VERSION) {
                        throw new MalformedEditException("manifest format version " + version + " is not supported");
                    }
                }
                case TAG_COLUMN_FAMILY -> edit.columnFamily(in.columnFamily());
                case TAG_ADD_COLUMN_FAMILY -> edit.addColumnFamily(
                        new String(in.bytes(), StandardCharsets.UTF_8));
                case TAG_DROP_COLUMN_FAMILY -> edit.dropColumnFamily();
                case TAG_NEXT_COLUMN_FAMILY -> edit.nextColumnFamily(in.columnFamily());
                case TAG_LOG_NUMBER -> edit.logNumber(in.varint());
                case TAG_NEXT_FILE_NUMBER -> edit.nextFileNumber(in.varint());
                case TAG_LAST_SEQUENCE -> edit.lastSequence(in.varint());
                case TAG_REMOVE_TABLE -> edit.remove(in.level(), in.varint());
                case TAG_ADD_TABLE -> {
                    int level = in.level();
                    long number = in.varint();
                    long size = in.varint();
                    byte[] smallest = in.bytes();
                    long smallestTrailer = in.varint();
                    byte[] largest = in.bytes();
                    long largestTrailer = in.varint();
                    long smallestSequence = in.varint();
                    long largestSequence = in.varint();
                    long global = in.varint() - 1;
                    if (number <= 0) {
                        throw new MalformedEditException("table file number " + number);
                    }
                    edit.add(level, new TableMeta(number, size, smallest, smallestTrailer, largest, largestTrailer,
                            smallestSequence, largestSequence, global));
                }
                // TAG_EDIT_GROUP included: a group inside an edit is damage.
                default -> throw new MalformedEditException("unknown field tag " + tag + " at byte " + in.position);
            }
        }
        return edit;
    }

    private static void putField(ByteArrayOutputStream out, int tag, long value) {
        if (value != VersionEdit.UNSET) {
            putVarint(out, tag);
            putVarint(out, value);
        }
    }

    private static void putBytes(ByteArrayOutputStream out, byte[] bytes) {
        putVarint(out, bytes.length);
        out.writeBytes(bytes);
    }

    private static void putVarint(ByteArrayOutputStream out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static final class Reader {
        private final byte[] data;
        int position;

        Reader(byte[] data) {
            this.data = data;
        }

        long varint() throws MalformedEditException {
            long result = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (position >= data.length) {
                    throw new MalformedEditException("varint runs past the end at byte " + position);
                }
                int b = data[position++] & 0xFF;
                result |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return result;
                }
            }
            throw new MalformedEditException("varint longer than 10 bytes at byte " + position);
        }

        int columnFamily() throws MalformedEditException {
            long id = varint();
            if (id < 0 || id > Integer.MAX_VALUE) {
                throw new MalformedEditException("column family id " + id + " out of range");
            }
            return (int) id;
        }

        int level() throws MalformedEditException {
            long level = varint();
            if (level < 0 || level >= Version.NUM_LEVELS) {
                throw new MalformedEditException("level " + level + " out of range");
            }
            return (int) level;
        }

        byte[] bytes() throws MalformedEditException {
            long length = varint();
            if (length < 0 || length > data.length - position) {
                throw new MalformedEditException("length " + length + " at byte " + position + " runs past the end");
            }
            byte[] b = Arrays.copyOfRange(data, position, position + (int) length);
            position += (int) length;
            return b;
        }
    }
}

package io.varve.raftlog.format;

import io.varve.core.base.CorruptionException;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes and decodes a batch footer: {@code varint itemCount}, then the items. Each item starts with a
 * one-byte type and the group id as a varint; the rest depends on the type (docs/raftlog-format.md):
 *
 * <pre>
 * ENTRIES     first index, count (&gt;= 1), region start, count x payload length
 * CLEAN       -
 * COMPACT     index
 * PUT         key length, key, value length, value
 * DELETE      key length, key
 * RETAIN      first index, count
 * CLEAR_STATE -
 * COMMIT      - (group is 0)
 * </pre>
 */
public final class FooterCodec {

    private FooterCodec() {
    }

    public static void encode(List<BatchItem> items, ByteSink out) {
        out.writeVarint(items.size());
        for (BatchItem item : items) {
            switch (item) {
                case BatchItem.Entries e -> {
                    out.writeByte(BatchFormat.ITEM_ENTRIES);
                    out.writeVarint(e.group());
                    out.writeVarint(e.firstIndex());
                    out.writeVarint(e.count());
                    out.writeVarint(e.regionStart());
                    for (int length : e.lengths()) {
                        out.writeVarint(length);
                    }
                }
                case BatchItem.Clean c -> {
                    out.writeByte(BatchFormat.ITEM_CLEAN);
                    out.writeVarint(c.group());
                }
                case BatchItem.Compact c -> {
                    out.writeByte(BatchFormat.ITEM_COMPACT);
                    out.writeVarint(c.group());
                    out.writeVarint(c.index());
                }
                case BatchItem.Put p -> {
                    out.writeByte(BatchFormat.ITEM_PUT);
                    out.writeVarint(p.group());
                    out.writeLengthPrefixed(p.key());
                    out.writeLengthPrefixed(p.value());
                }
                case BatchItem.Delete d -> {
                    out.writeByte(BatchFormat.ITEM_DELETE);
                    out.writeVarint(d.group());
                    out.writeLengthPrefixed(d.key());
                }
                case BatchItem.Retain r -> {
                    out.writeByte(BatchFormat.ITEM_RETAIN);
                    out.writeVarint(r.group());
                    out.writeVarint(r.first());
                    out.writeVarint(r.count());
                }
                case BatchItem.ClearState c -> {
                    out.writeByte(BatchFormat.ITEM_CLEAR_STATE);
                    out.writeVarint(c.group());
                }
                case BatchItem.Commit c -> {
                    out.writeByte(BatchFormat.ITEM_COMMIT);
                    out.writeVarint(0);
                }
            }
        }
    }

    /**
     * Decodes a whole footer; the cursor must span exactly the footer. {@code rawEntriesLength} bounds the
     * entry regions so a decoded item never points outside its block.
     */
    public static List<BatchItem> decode(ByteCursor in, int rawEntriesLength) throws CorruptionException {
        int count = in.boundedInt(in.remaining(), "item count");
        List<BatchItem> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = in.position();
            int type = in.u8();
            long group = in.varint();
            items.add(switch (type) {
                case BatchFormat.ITEM_ENTRIES -> decodeEntries(in, group, rawEntriesLength, at);
                case BatchFormat.ITEM_CLEAN -> new BatchItem.Clean(group);
                case BatchFormat.ITEM_COMPACT -> new BatchItem.Compact(group, index(in));
                case BatchFormat.ITEM_PUT -> new BatchItem.Put(group, in.lengthPrefixed("key"),
                        in.lengthPrefixed("value"));
                case BatchFormat.ITEM_DELETE -> new BatchItem.Delete(group, in.lengthPrefixed("key"));
                case BatchFormat.ITEM_RETAIN -> {
                    long first = index(in);
                    int countAt = in.position();
                    long n = in.varint();
                    if (n < 0 || first > Long.MAX_VALUE - n) {
                        throw in.corrupt(countAt, "retain count " + n + " overflows the index space");
                    }
                    yield new BatchItem.Retain(group, first, n);
                }
                case BatchFormat.ITEM_CLEAR_STATE -> new BatchItem.ClearState(group);
                case BatchFormat.ITEM_COMMIT -> {
                    if (group != 0) {
                        throw in.corrupt(at, "commit item with group " + group);
                    }
                    yield new BatchItem.Commit();
                }
                default -> throw in.corrupt(at, "unknown footer item type " + type);
            });
        }
        if (in.remaining() != 0) {
            throw in.corrupt(in.position(), in.remaining() + " unexpected bytes after the last footer item");
        }
        return items;
    }

    private static long index(ByteCursor in) throws CorruptionException {
        int at = in.position();
        long v = in.varint();
        if (v < 0) {
            throw in.corrupt(at, "negative index " + v);
        }
        return v;
    }

    private static BatchItem.Entries decodeEntries(ByteCursor in, long group, int rawLength, int itemAt)
            throws CorruptionException {
        long first = index(in);
        int n = in.boundedInt(in.remaining(), "entry count");
        if (n == 0 || first > Long.MAX_VALUE - n) {
            throw in.corrupt(itemAt, "bad entry count " + n + " at first index " + first);
        }
        int regionStart = in.boundedInt(rawLength, "entry region start");
        int[] lengths = new int[n];
        long end = regionStart;
        for (int i = 0; i < n; i++) {
            lengths[i] = in.boundedInt(rawLength, "entry length");
            end += Varints.size(lengths[i]) + (long) lengths[i];
        }
        if (end > rawLength) {
            throw in.corrupt(itemAt, "entries of group " + group + " end at " + end
                    + ", past the entries block of " + rawLength + " bytes");
        }
        return new BatchItem.Entries(group, first, regionStart, lengths);
    }
}

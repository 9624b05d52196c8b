package io.varve.raftlog.format;

import io.varve.base.CorruptionException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encodes and decodes a batch footer: items back to back up to the footer's end. Each item starts with a tag
 * byte (the type, plus {@link BatchFormat#TAG_SAME_GROUP} and {@link BatchFormat#TAG_ONE_ENTRY}), then the
 * group id as a varint unless the tag says it repeats the previous item's; the rest depends on the type
 * (docs/raftlog-format.md):
 *
 * <pre>
 * ENTRIES     first index, count (&gt;= 1; absent with TAG_ONE_ENTRY), count x payload length
 * CLEAN       -
 * COMPACT     index
 * PUT         key length, key, value length, value
 * DELETE      key length, key
 * RETAIN      first index, count
 * CLEAR_STATE -
 * COMMIT      append sequence, append end, append floor, rewrite floor (group is 0)
 * COMMIT_V3   - (group is 0; read only)
 * </pre>
 *
 * Entry payloads lie in the entries block in the order the footer lists them, so the lengths alone give every
 * entry's offset and the raw length of the block.
 */
public final class FooterCodec {

    /** How much of a footer {@link #decode} returns. Every level checks the whole footer. */
    public enum Detail {
        /** Only the totals: what recovery's scanners need to find the next batch, without allocating per item. */
        TOTALS,
        /** The items too. */
        ITEMS,
        /** The items and every entry's offset in the entries block: what a reader needs. */
        OFFSETS
    }

    /**
     * A decoded footer. {@code items} is null at {@link Detail#TOTALS}; {@code offsets} (only at
     * {@link Detail#OFFSETS}) has {@code entryCount + 1} values: entry {@code k} of the batch is
     * {@code raw[offsets[k], offsets[k + 1])}.
     */
    public record Footer(List<BatchItem> items, int entryCount, long rawLength, int[] offsets, boolean endsWithCommit) {
    }

    private FooterCodec() {
    }

    /** @param lengths payload length of every entry of the batch, by entry number */
    public static void encode(List<BatchItem> items, int[] lengths, ByteSink out) {
        long previousGroup = 0;
        boolean first = true;
        for (BatchItem item : items) {
            int tag = switch (item) {
                case BatchItem.Entries e -> BatchFormat.ITEM_ENTRIES | (e.count() == 1 ? BatchFormat.TAG_ONE_ENTRY : 0);
                case BatchItem.Clean c -> BatchFormat.ITEM_CLEAN;
                case BatchItem.Compact c -> BatchFormat.ITEM_COMPACT;
                case BatchItem.Put p -> BatchFormat.ITEM_PUT;
                case BatchItem.Delete d -> BatchFormat.ITEM_DELETE;
                case BatchItem.Retain r -> BatchFormat.ITEM_RETAIN;
                case BatchItem.ClearState c -> BatchFormat.ITEM_CLEAR_STATE;
                case BatchItem.Commit c -> c.recorded() ? BatchFormat.ITEM_COMMIT : BatchFormat.ITEM_COMMIT_V3;
            };
            boolean same = !first && item.group() == previousGroup;
            out.writeByte(tag | (same ? BatchFormat.TAG_SAME_GROUP : 0));
            if (!same) {
                out.writeVarint(item.group());
            }
            first = false;
            previousGroup = item.group();
            switch (item) {
                case BatchItem.Entries e -> {
                    out.writeVarint(e.firstIndex());
                    if (e.count() != 1) {
                        out.writeVarint(e.count());
                    }
                    for (int k = e.firstOrdinal(); k < e.firstOrdinal() + e.count(); k++) {
                        out.writeVarint(lengths[k]);
                    }
                }
                case BatchItem.Compact c -> out.writeVarint(c.index());
                case BatchItem.Put p -> {
                    out.writeLengthPrefixed(p.key());
                    out.writeLengthPrefixed(p.value());
                }
                case BatchItem.Delete d -> out.writeLengthPrefixed(d.key());
                case BatchItem.Retain r -> {
                    out.writeVarint(r.first());
                    out.writeVarint(r.count());
                }
                case BatchItem.Clean c -> { }
                case BatchItem.ClearState c -> { }
                case BatchItem.Commit c -> {
                    if (c.recorded()) {
                        out.writeVarint(c.appendSequence());
                        out.writeVarint(c.appendEnd());
                        out.writeVarint(c.appendFloor());
                        out.writeVarint(c.rewriteFloor());
                    }
                }
            }
        }
    }

    /** Decodes a whole footer, to the given detail; the cursor must span exactly the footer. */
    public static Footer decode(ByteCursor in, Detail detail) throws CorruptionException {
        // Sized for the common shape (an entries item then a small put per group) so the list rarely grows.
        List<BatchItem> items = detail == Detail.TOTALS ? null
                : new ArrayList<>(Math.min(1024, 2 + in.remaining() / 16));
        int[] offsets = detail == Detail.OFFSETS ? new int[16] : null;
        int entries = 0;
        long raw = 0;
        long previousGroup = 0;
        int itemCount = 0;
        int lastType = 0;
        while (in.remaining() > 0) {
            int at = in.position();
            int tag = in.u8();
            int type = tag & BatchFormat.TYPE_MASK;
            int modifiers = tag & ~BatchFormat.TYPE_MASK;
            boolean oneEntry = (modifiers & BatchFormat.TAG_ONE_ENTRY) != 0;
            if ((modifiers & ~(BatchFormat.TAG_SAME_GROUP | BatchFormat.TAG_ONE_ENTRY)) != 0
                    || (oneEntry && type != BatchFormat.ITEM_ENTRIES)) {
                throw in.corrupt(at, String.format("bad footer item tag 0x%02x", tag));
            }
            long group;
            if ((modifiers & BatchFormat.TAG_SAME_GROUP) != 0) {
                if (itemCount == 0) {
                    throw in.corrupt(at, "the first footer item cannot repeat a previous group");
                }
                group = previousGroup;
            } else {
                group = in.varint();
            }
            previousGroup = group;
            BatchItem item = switch (type) {
                case BatchFormat.ITEM_ENTRIES -> {
                    long first = index(in);
                    int n = oneEntry ? 1 : in.boundedInt(in.remaining(), "entry count");
                    if (n == 0 || first > Long.MAX_VALUE - n) {
                        throw in.corrupt(at, "bad entry count " + n + " at first index " + first);
                    }
                    for (int i = 0; i < n; i++) {
                        if (offsets != null) {
                            if (entries + i + 1 >= offsets.length) {
                                offsets = Arrays.copyOf(offsets, offsets.length * 2);
                            }
                            offsets[entries + i] = (int) raw;
                        }
                        int lengthAt = in.position();
                        raw += in.boundedInt(BatchFormat.MAX_RAW_ENTRIES, "entry length");
                        if (raw > BatchFormat.MAX_RAW_ENTRIES) {
                            throw in.corrupt(lengthAt, "entries exceed the " + BatchFormat.MAX_RAW_ENTRIES
                                    + "-byte block limit");
                        }
                    }
                    BatchItem.Entries e = items == null ? null : new BatchItem.Entries(group, first, entries, n);
                    entries += n;
                    yield e;
                }
                case BatchFormat.ITEM_CLEAN -> items == null ? null : new BatchItem.Clean(group);
                case BatchFormat.ITEM_COMPACT -> {
                    long index = index(in);
                    yield items == null ? null : new BatchItem.Compact(group, index);
                }
                case BatchFormat.ITEM_PUT -> {
                    if (items == null) {
                        in.skipLengthPrefixed("key length");
                        in.skipLengthPrefixed("value length");
                        yield null;
                    }
                    yield new BatchItem.Put(group, in.lengthPrefixed("key length"), in.lengthPrefixed("value length"));
                }
                case BatchFormat.ITEM_DELETE -> {
                    if (items == null) {
                        in.skipLengthPrefixed("key length");
                        yield null;
                    }
                    yield new BatchItem.Delete(group, in.lengthPrefixed("key length"));
                }
                case BatchFormat.ITEM_RETAIN -> {
                    long first = index(in);
                    int countAt = in.position();
                    long n = in.varint();
                    if (n < 0 || first > Long.MAX_VALUE - n) {
                        throw in.corrupt(countAt, "retain count " + n + " overflows the index space");
                    }
                    yield items == null ? null : new BatchItem.Retain(group, first, n);
                }
                case BatchFormat.ITEM_CLEAR_STATE -> items == null ? null : new BatchItem.ClearState(group);
                case BatchFormat.ITEM_COMMIT, BatchFormat.ITEM_COMMIT_V3 -> {
                    if (group != 0) {
                        throw in.corrupt(at, "commit item with group " + group);
                    }
                    if (type == BatchFormat.ITEM_COMMIT_V3) {
                        yield items == null ? null : BatchItem.Commit.UNRECORDED;
                    }
                    long appendSequence = index(in);
                    long appendEnd = index(in);
                    long appendFloor = index(in);
                    long rewriteFloor = index(in);
                    if (appendSequence == 0) {
                        throw in.corrupt(at, "commit item without an append file");
                    }
                    yield items == null ? null
                            : new BatchItem.Commit(appendSequence, appendEnd, appendFloor, rewriteFloor);
                }
                default -> throw in.corrupt(at, "unknown footer item type " + type);
            };
            if (items != null) {
                items.add(item);
            }
            itemCount++;
            lastType = type;
        }
        if (itemCount == 0) {
            throw in.corrupt(in.position(), "empty footer");
        }
        if (offsets != null) {
            offsets[entries] = (int) raw;
            offsets = Arrays.copyOf(offsets, entries + 1);
        }
        boolean commits = lastType == BatchFormat.ITEM_COMMIT || lastType == BatchFormat.ITEM_COMMIT_V3;
        return new Footer(items, entries, raw, offsets, commits);
    }

    private static long index(ByteCursor in) throws CorruptionException {
        int at = in.position();
        long v = in.varint();
        if (v < 0) {
            throw in.corrupt(at, "negative index " + v);
        }
        return v;
    }
}

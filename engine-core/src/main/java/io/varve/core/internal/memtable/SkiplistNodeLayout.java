package io.varve.core.internal.memtable;

/**
 * Where each field of a skiplist node lives in the memtable's arena segment. Every offset the memtable uses is
 * derived here, so the layout can be read (and changed) in one place.
 *
 * <pre>
 *   offset  size          field
 *   0       8             trailer (long: sequence &lt;&lt; 8 | kind)
 *   8       4             tower height h, 1..MAX_HEIGHT (int)
 *   12      4             key length (int)
 *   16      4             value length (int)
 *   20      4 * h         tower: next[0] .. next[h-1], arena offsets of the successor at each level (int)
 *   20+4h   key length    user key bytes
 *   ...     value length  value bytes
 *   ...     0..7          padding up to a multiple of 8, so the next node's trailer is 8-aligned
 * </pre>
 *
 * <p>Why this order: the arena segment is 8-aligned and every node starts at a multiple of 8, so the trailer
 * (a long) sits at an 8-aligned address and the int fields and tower links at 4-aligned ones. Aligned ints
 * are what lets {@code VarHandle.compareAndSet} operate on the links. The fixed header needs no padding, and
 * a node only pays for the levels it actually has (most nodes have height 1, so 4 bytes of tower).
 *
 * <p>Offset 0 of the arena is never handed out, so 0 serves as the "no node" link ({@link #NIL}).
 */
final class SkiplistNodeLayout {

    /** Towers never grow past this; with p = 1/4 it is ample for the 2 GiB an arena can hold. */
    static final int MAX_HEIGHT = 20;

    /** The link value meaning "no successor"; no node is ever allocated at arena offset 0. */
    static final int NIL = 0;

    /** Every node starts at a multiple of this, keeping the trailer 8-aligned. */
    static final int NODE_ALIGNMENT = 8;

    static final long TRAILER_OFFSET = 0;
    static final long HEIGHT_OFFSET = 8;
    static final long KEY_LENGTH_OFFSET = 12;
    static final long VALUE_LENGTH_OFFSET = 16;
    static final long TOWER_OFFSET = 20;

    /** Bytes of one tower entry (an int arena offset). */
    static final int LINK_SIZE = 4;

    private SkiplistNodeLayout() {
    }

    /** The bytes a node occupies in the arena, padding included. */
    static long nodeSize(int height, long keyLength, long valueLength) {
        long unpadded = TOWER_OFFSET + (long) LINK_SIZE * height + keyLength + valueLength;
        return alignUp(unpadded);
    }

    static long alignUp(long size) {
        return (size + NODE_ALIGNMENT - 1) & -NODE_ALIGNMENT;
    }

    /** Arena offset of the link to the node's successor at {@code level}. */
    static long linkOffset(int node, int level) {
        return node + TOWER_OFFSET + (long) LINK_SIZE * level;
    }

    /** Arena offset of the first key byte, given the node's height. */
    static long keyOffset(int node, int height) {
        return node + TOWER_OFFSET + (long) LINK_SIZE * height;
    }
}

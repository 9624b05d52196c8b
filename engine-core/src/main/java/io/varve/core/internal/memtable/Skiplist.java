package io.varve.core.internal.memtable;

import static io.varve.core.internal.memtable.SkiplistNodeLayout.HEIGHT_OFFSET;
import static io.varve.core.internal.memtable.SkiplistNodeLayout.KEY_LENGTH_OFFSET;
import static io.varve.core.internal.memtable.SkiplistNodeLayout.MAX_HEIGHT;
import static io.varve.core.internal.memtable.SkiplistNodeLayout.NIL;
import static io.varve.core.internal.memtable.SkiplistNodeLayout.TRAILER_OFFSET;
import static io.varve.core.internal.memtable.SkiplistNodeLayout.VALUE_LENGTH_OFFSET;

import io.varve.core.internal.keys.Keys;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * An insert-only, lock-free skiplist of internal entries whose nodes live in a {@link MemtableArena}. See
 * {@link Memtable} for the concurrency argument; this class is the mechanism.
 *
 * <p>Nodes are named by their int offset in the arena. The head node is a sentinel of full height whose key is
 * never compared: it stands for "before every entry". Searches therefore only ever compare successors.
 */
final class Skiplist {

    /** Reads and CASes tower links. Coordinates: (MemorySegment, long offset). */
    private static final VarHandle LINK = ValueLayout.JAVA_INT.varHandle();

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private final MemtableArena arena;
    private final MemorySegment memory;
    private final int head;
    /**
     * The tallest tower linked so far, a hint for where searches start. A stale (lower) value only costs a
     * longer walk, never a wrong answer: every level is a complete sorted list on its own.
     */
    private final AtomicInteger height = new AtomicInteger(1);
    private final LongAdder entries = new LongAdder();
    /**
     * Where the last insert linked its node, at every level: the next insert of a larger key (a sequential
     * load) starts there instead of descending from the head. Published whole and never changed after, so a
     * reader sees a consistent splice, if perhaps an old one; see {@link #findSplice}.
     */
    private volatile Splice lastSplice;

    /** Per level, the last node before a key and the first node at or after it, as found at some moment. */
    private record Splice(int[] prevs, int[] nexts) {
    }

    Skiplist(MemtableArena arena) {
        this.arena = arena;
        this.memory = arena.memory();
        this.head = arena.allocate(SkiplistNodeLayout.nodeSize(MAX_HEIGHT, 0, 0));
        if (head == MemtableArena.NO_ROOM) {
            throw new IllegalArgumentException("arena too small for the head node");
        }
        // The arena is zero-filled, so the head's links already read NIL; only the height needs writing.
        memory.set(INT, head + HEIGHT_OFFSET, MAX_HEIGHT);
    }

    /** The bytes a node for this entry may need at most: the limit on what can ever fit. */
    static long maxNodeSize(long keyLength, long valueLength) {
        return SkiplistNodeLayout.nodeSize(MAX_HEIGHT, keyLength, valueLength);
    }

    MemorySegment memory() {
        return memory;
    }

    long entryCount() {
        return entries.sum();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Insert

    /**
     * Links a new node for the entry and returns it, or returns {@link SkiplistNodeLayout#NIL} when the arena
     * has no room (then nothing was linked).
     *
     * @throws IllegalStateException if an entry with the same user key and trailer is already present
     */
    int insert(MemorySegment userKey, long trailer, MemorySegment value) {
        int keyLength = (int) userKey.byteSize();
        int valueLength = (int) value.byteSize();
        int nodeHeight = randomHeight();
        int[] prevs = new int[MAX_HEIGHT];
        int[] nexts = new int[MAX_HEIGHT];
        boolean reused = findSplice(userKey, trailer, prevs, nexts);
        checkNotDuplicate(nexts[0], userKey, trailer);

        int node = arena.allocate(SkiplistNodeLayout.nodeSize(nodeHeight, keyLength, valueLength));
        if (node == MemtableArena.NO_ROOM) {
            return NIL;
        }
        writeNode(node, nodeHeight, userKey, trailer, value);
        raiseHeight(nodeHeight);

        // Bottom-up: the node becomes an entry the moment level 0 links it; the upper levels only add
        // shortcuts. A search that misses a half-linked tower still finds the node by walking level 0.
        for (int level = 0; level < nodeHeight; level++) {
            if (reused && level > 0 && nexts[level] != NIL
                    && compareNodeTo(nexts[level], userKey, 0, userKey.byteSize(), trailer) < 0) {
                // A reused splice's upper pair can be overtaken by a node linked since: search from its start.
                findSpliceAtLevel(userKey, trailer, level, prevs[level], prevs, nexts);
            }
            while (true) {
                // Not yet reachable at this level (towers are linked bottom-up and searches only descend), so
                // no other thread reads or writes this link yet; a plain write ordered by the CAS below suffices.
                memory.set(INT, SkiplistNodeLayout.linkOffset(node, level), nexts[level]);
                // compareAndSet has volatile semantics: it publishes every plain write above (the node's fields,
                // key and value bytes) to any thread that reads this link with acquire semantics.
                if (LINK.compareAndSet(memory, SkiplistNodeLayout.linkOffset(prevs[level], level),
                        nexts[level], node)) {
                    break;
                }
                // Someone linked a node after prevs[level]. Nodes are never removed, so prevs[level] still
                // precedes our key and is a valid place to restart the search at this level.
                findSpliceAtLevel(userKey, trailer, level, prevs[level], prevs, nexts);
                if (level == 0) {
                    // Level 0 decides membership: of two racing inserts of one key, exactly one wins this CAS.
                    checkNotDuplicate(nexts[0], userKey, trailer);
                }
            }
        }
        entries.increment();
        // The splice just after this node: it now precedes, at its levels, what it links to.
        for (int level = 0; level < nodeHeight; level++) {
            prevs[level] = node;
        }
        lastSplice = new Splice(prevs, nexts);
        return node;
    }

    private void writeNode(int node, int nodeHeight, MemorySegment userKey, long trailer, MemorySegment value) {
        int keyLength = (int) userKey.byteSize();
        int valueLength = (int) value.byteSize();
        memory.set(LONG, node + TRAILER_OFFSET, trailer);
        memory.set(INT, node + HEIGHT_OFFSET, nodeHeight);
        memory.set(INT, node + KEY_LENGTH_OFFSET, keyLength);
        memory.set(INT, node + VALUE_LENGTH_OFFSET, valueLength);
        long keyOffset = SkiplistNodeLayout.keyOffset(node, nodeHeight);
        MemorySegment.copy(userKey, 0, memory, keyOffset, keyLength);
        MemorySegment.copy(value, 0, memory, keyOffset + keyLength, valueLength);
    }

    private void checkNotDuplicate(int next, MemorySegment userKey, long trailer) {
        if (next != NIL && compareNodeTo(next, userKey, 0, userKey.byteSize(), trailer) == 0) {
            throw new IllegalStateException("duplicate internal key: user key of " + userKey.byteSize()
                    + " bytes with trailer 0x" + Long.toHexString(trailer) + " is already in the memtable");
        }
    }

    private void raiseHeight(int nodeHeight) {
        int current = height.get();
        while (nodeHeight > current && !height.compareAndSet(current, nodeHeight)) {
            current = height.get();
        }
    }

    /** Height h with probability (1/4)^(h-1) * 3/4, capped: two random bits per extra level. */
    private static int randomHeight() {
        long bits = ThreadLocalRandom.current().nextLong();
        int h = 1;
        while (h < MAX_HEIGHT && (bits & 3) == 0) {
            h++;
            bits >>>= 2;
        }
        return h;
    }

    /**
     * For every level, the last node before the key ({@code prevs}, possibly the head) and the first node at or
     * after it ({@code nexts}, possibly NIL); returns whether the last insert's splice was reused.
     *
     * <p>It is reused when its level-0 pair brackets the key now. Every higher level's first node then precedes
     * the key as well: it was at or before the level-0 one when the splice was found, and nodes never move. A
     * higher level's second node may not follow the key any more (a node linked since, whose level-0 link
     * showed up as a failed CAS, can sit between), so {@link #insert} checks it before linking that level.
     * Nodes linked since between a pair make that level's CAS fail, and the insert searches the level again from
     * the pair's first node, as after any lost race; the duplicate check runs again after a failed level-0 CAS.
     */
    private boolean findSplice(MemorySegment userKey, long trailer, int[] prevs, int[] nexts) {
        long keyLength = userKey.byteSize();
        Splice hint = lastSplice;
        if (hint != null) {
            int before = hint.prevs()[0];
            int after = hint.nexts()[0];
            if ((before == head || compareNodeTo(before, userKey, 0, keyLength, trailer) < 0)
                    && (after == NIL || compareNodeTo(after, userKey, 0, keyLength, trailer) >= 0)) {
                System.arraycopy(hint.prevs(), 0, prevs, 0, MAX_HEIGHT);
                System.arraycopy(hint.nexts(), 0, nexts, 0, MAX_HEIGHT);
                return true;
            }
        }
        descend(userKey, 0, keyLength, trailer, MAX_HEIGHT, prevs, nexts);
        return false;
    }

    /**
     * Walks from the head down through {@code levels} levels towards the target and returns, as seen at level
     * 0, the last node before it (the head if none) in the high 32 bits and the first node at or after it
     * (NIL if none) in the low 32 bits; records both for every level when {@code prevs} is not null.
     *
     * <p>The node that ends the walk at one level is often where the walk at the next level ends too. It is
     * known not to come before the target, so it is not compared again: a comparison is a read of a key that
     * may sit anywhere in the arena, and this saves about one per level.
     */
    private long descend(MemorySegment keySegment, long keyOffset, long keyLength, long trailer, int levels,
                         int[] prevs, int[] nexts) {
        int x = head;
        int next = NIL;
        int knownNotBefore = NIL;
        for (int level = levels - 1; level >= 0; level--) {
            next = link(x, level);
            while (next != NIL && next != knownNotBefore
                    && compareNodeTo(next, keySegment, keyOffset, keyLength, trailer) < 0) {
                x = next;
                next = link(x, level);
            }
            knownNotBefore = next;
            if (prevs != null) {
                prevs[level] = x;
                nexts[level] = next;
            }
        }
        return ((long) x << 32) | (next & 0xFFFF_FFFFL);
    }

    private void findSpliceAtLevel(MemorySegment userKey, long trailer, int level, int start, int[] prevs,
            int[] nexts) {
        long keyLength = userKey.byteSize();
        int x = start;
        int next = link(x, level);
        while (next != NIL && compareNodeTo(next, userKey, 0, keyLength, trailer) < 0) {
            x = next;
            next = link(x, level);
        }
        prevs[level] = x;
        nexts[level] = next;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Searches (all return NIL for "no such node")

    /** The first node at or after the target key. */
    int findGreaterOrEqual(MemorySegment keySegment, long keyOffset, long keyLength, long trailer) {
        return (int) descend(keySegment, keyOffset, keyLength, trailer, height.get(), null, null);
    }

    /** The last node strictly before the target key. */
    int findLessThan(MemorySegment keySegment, long keyOffset, long keyLength, long trailer) {
        int x = (int) (descend(keySegment, keyOffset, keyLength, trailer, height.get(), null, null) >>> 32);
        return x == head ? NIL : x;
    }

    /** The last node at or before the target key. */
    int findLessOrEqual(MemorySegment keySegment, long keyOffset, long keyLength, long trailer) {
        long found = descend(keySegment, keyOffset, keyLength, trailer, height.get(), null, null);
        int x = (int) (found >>> 32);
        int next = (int) found;
        if (next != NIL && compareNodeTo(next, keySegment, keyOffset, keyLength, trailer) == 0) {
            return next;
        }
        return x == head ? NIL : x;
    }

    int first() {
        return link(head, 0);
    }

    int last() {
        int x = head;
        for (int level = height.get() - 1; level >= 0; level--) {
            int next = link(x, level);
            while (next != NIL) {
                x = next;
                next = link(x, level);
            }
        }
        return x == head ? NIL : x;
    }

    int next(int node) {
        return link(node, 0);
    }

    /** The node before {@code node}: a search from the head, since nodes keep no backward links. */
    int previous(int node) {
        return findLessThan(memory, keyOffset(node), keyLength(node), trailer(node));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Node fields. Plain reads are safe for all but the links: a node's fields are written once, before the
    // node is published, and a reader only learns a node's offset through an acquiring link read.

    /** Acquire pairs with the publishing CAS, so everything written before it is visible after this read. */
    private int link(int node, int level) {
        return (int) LINK.getAcquire(memory, SkiplistNodeLayout.linkOffset(node, level));
    }

    long trailer(int node) {
        return memory.get(LONG, node + TRAILER_OFFSET);
    }

    int keyLength(int node) {
        return memory.get(INT, node + KEY_LENGTH_OFFSET);
    }

    int valueLength(int node) {
        return memory.get(INT, node + VALUE_LENGTH_OFFSET);
    }

    long keyOffset(int node) {
        return SkiplistNodeLayout.keyOffset(node, memory.get(INT, node + HEIGHT_OFFSET));
    }

    long valueOffset(int node) {
        return keyOffset(node) + keyLength(node);
    }

    MemorySegment userKey(int node) {
        return memory.asSlice(keyOffset(node), keyLength(node));
    }

    MemorySegment value(int node) {
        return memory.asSlice(valueOffset(node), valueLength(node));
    }

    int copyUserKey(int node, byte[] dest) {
        return Keys.copyInto(memory, keyOffset(node), keyLength(node), dest);
    }

    int copyValue(int node, byte[] dest) {
        return Keys.copyInto(memory, valueOffset(node), valueLength(node), dest);
    }

    /** Whether the node's user key equals the given one (trailers not compared). */
    boolean userKeyEquals(int node, MemorySegment userKey) {
        int length = keyLength(node);
        if (length != userKey.byteSize()) {
            return false;
        }
        long keyOffset = keyOffset(node);
        long i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            if (memory.get(ValueLayout.JAVA_LONG_UNALIGNED, keyOffset + i)
                    != userKey.get(ValueLayout.JAVA_LONG_UNALIGNED, i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, keyOffset + i) != userKey.get(ValueLayout.JAVA_BYTE, i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Orders the node against a target internal key: user keys as unsigned bytes (shorter prefix first), then
     * trailers descending. Compares in place, without slicing, so searches allocate nothing.
     */
    int compareNodeTo(int node, MemorySegment keySegment, long keyOffset, long keyLength, long trailer) {
        int c = Keys.compare(memory, keyOffset(node), keyLength(node), keySegment, keyOffset, keyLength);
        if (c != 0) {
            return c;
        }
        return Long.compareUnsigned(trailer, trailer(node));
    }
}

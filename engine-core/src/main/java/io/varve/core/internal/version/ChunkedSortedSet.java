package io.varve.core.internal.version;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Predicate;

/**
 * An immutable sorted set with positional access, stored as a directory of immutable chunks so that a
 * changed copy shares every chunk the change does not touch.
 *
 * <h2>Why chunks</h2>
 * A version's level may hold 100,000 tables and every edit makes a new version. Copying a flat array per edit
 * costs O(n) time and garbage; here {@link #with} copies only the chunks that gain or lose elements (at most
 * {@code maxChunk} references each) plus the directory ({@code n / maxChunk} references and as many ints):
 * O(changed × maxChunk + n / maxChunk). Readers are unaffected: a search is a binary search over the chunks'
 * last elements followed by one inside a chunk — the same number of comparisons as on a flat array.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Every chunk is non-empty, sorted by {@code order}, and holds at most {@code maxChunk} elements; the
 *       last element of a chunk orders strictly before the first of the next. No two elements compare equal.</li>
 *   <li>When there is more than one chunk, every chunk holds at least {@code minChunk = max(1, maxChunk / 4)}
 *       elements, so the directory stays within {@code 4n / maxChunk} entries however elements come and go:
 *       a rebuilt chunk that falls short is merged with a neighbour, one that grows too big is split evenly.</li>
 *   <li>{@code starts[c]} is the number of elements before chunk {@code c}; {@code starts[chunkCount]} is the size.</li>
 * </ul>
 * Never mutated after construction, so instances are safe to share between threads once published.
 */
final class ChunkedSortedSet<T> implements Iterable<T> {

    static final int DEFAULT_MAX_CHUNK = 256;
    private static final Object[][] NO_CHUNKS = new Object[0][];
    private static final int[] NO_STARTS = {0};

    private final Comparator<? super T> order;
    private final int maxChunk;
    /** The directory: chunks {@code [0, count)} are in use; a few slots past them may be spare. */
    private final Object[][] chunks;
    private final int count;
    private final int[] starts;

    private ChunkedSortedSet(Comparator<? super T> order, int maxChunk, Object[][] chunks, int count, int[] starts) {
        this.order = order;
        this.maxChunk = maxChunk;
        this.chunks = chunks;
        this.count = count;
        this.starts = starts;
    }

    static <T> ChunkedSortedSet<T> empty(Comparator<? super T> order) {
        return empty(order, DEFAULT_MAX_CHUNK);
    }

    /** An empty set whose chunks hold at most {@code maxChunk} elements (small values exercise splits in tests). */
    static <T> ChunkedSortedSet<T> empty(Comparator<? super T> order, int maxChunk) {
        if (maxChunk < 2) {
            throw new IllegalArgumentException("maxChunk must be at least 2: " + maxChunk);
        }
        return new ChunkedSortedSet<>(order, maxChunk, NO_CHUNKS, 0, NO_STARTS);
    }

    int size() {
        return starts[count];
    }

    int chunkCount() {
        return count;
    }

    /** Elements of chunk {@code c}, in order; the array is shared and must not be modified. */
    Object[] chunk(int c) {
        return chunks[c];
    }

    int minChunk() {
        return Math.max(1, maxChunk / 4);
    }

    int maxChunk() {
        return maxChunk;
    }

    @SuppressWarnings("unchecked")
    T get(int index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException("index " + index + " of " + size());
        }
        int c = chunkHolding(index);
        return (T) chunks[c][index - starts[c]];
    }

    /** The chunk whose range of positions contains {@code index} (which must be in range). */
    private int chunkHolding(int index) {
        // The last chunk whose start is at or before index.
        int low = 0;
        int high = count - 1;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (starts[mid] <= index) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /**
     * The position of the first element satisfying {@code atOrAfter}, or {@link #size()} if none does. The
     * predicate must be monotone in set order: false for a prefix of the elements, true for the rest.
     */
    @SuppressWarnings("unchecked")
    int firstIndex(Predicate<? super T> atOrAfter) {
        int low = 0;
        int high = count;
        while (low < high) {
            int mid = (low + high) >>> 1;
            Object[] chunk = chunks[mid];
            if (atOrAfter.test((T) chunk[chunk.length - 1])) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        if (low == count) {
            return size();
        }
        Object[] chunk = chunks[low];
        int from = 0;
        int to = chunk.length - 1; // the last element is known to satisfy the predicate
        while (from < to) {
            int mid = (from + to) >>> 1;
            if (atOrAfter.test((T) chunk[mid])) {
                to = mid;
            } else {
                from = mid + 1;
            }
        }
        return starts[low] + from;
    }

    /** The position of the element comparing equal to {@code element}, or -1. */
    int indexOf(T element) {
        int i = firstIndex(e -> order.compare(e, element) >= 0);
        return i < size() && order.compare(get(i), element) == 0 ? i : -1;
    }

    @Override
    public Iterator<T> iterator() {
        return new Iterator<>() {
            private int c;
            private int i;

            @Override
            public boolean hasNext() {
                return c < count;
            }

            @Override
            @SuppressWarnings("unchecked")
            public T next() {
                if (c >= count) {
                    throw new NoSuchElementException();
                }
                T element = (T) chunks[c][i++];
                if (i == chunks[c].length) {
                    c++;
                    i = 0;
                }
                return element;
            }
        };
    }

    /**
     * This set without {@code removals} and with {@code additions}. Removals are positions in this set
     * (duplicates are ignored); additions may come in any order. Costs O((changed chunks) × maxChunk +
     * chunkCount + (removals + additions) × log n): unchanged chunks are shared, and runs of them enter the new
     * directory by block copy.
     *
     * @throws IllegalArgumentException if an addition compares equal to another addition or to an element
     *     that stays
     */
    ChunkedSortedSet<T> with(int[] removals, List<? extends T> additions) {
        int[] removed = distinctSorted(removals);
        if (removed.length > 0 && (removed[0] < 0 || removed[removed.length - 1] >= size())) {
            throw new IndexOutOfBoundsException("removal out of range 0.." + size() + ": " + Arrays.toString(removals));
        }
        List<T> added = new ArrayList<>(additions);
        added.sort(order);
        for (int i = 1; i < added.size(); i++) {
            if (order.compare(added.get(i - 1), added.get(i)) == 0) {
                throw new IllegalArgumentException("added twice: " + added.get(i));
            }
        }
        if (removed.length == 0 && added.isEmpty()) {
            return this;
        }
        if (count == 0) {
            Builder out = new Builder(added.size() / maxChunk + 1);
            out.addSplit(added.toArray());
            return out.build();
        }
        return new Edit(removed, added).apply();
    }

    private static int[] distinctSorted(int[] values) {
        int[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[n++] = sorted[i];
            }
        }
        return n == sorted.length ? sorted : Arrays.copyOf(sorted, n);
    }

    /** One application of {@link #with}: which chunks change, and the new directory built around them. */
    private final class Edit {
        private final int[] removed;
        private final List<T> added;
        /** Chunk each removal / addition lands in; both non-decreasing since their inputs are sorted. */
        private final int[] removedChunk;
        private final int[] addedChunk;
        private int nextRemoval;
        private int nextAddition;

        Edit(int[] removed, List<T> added) {
            this.removed = removed;
            this.added = added;
            removedChunk = new int[removed.length];
            for (int i = 0; i < removed.length; i++) {
                removedChunk[i] = chunkHolding(removed[i]);
            }
            addedChunk = new int[added.size()];
            for (int i = 0; i < addedChunk.length; i++) {
                addedChunk[i] = chunkFor(added.get(i));
            }
        }

        /** The first chunk whose last element follows {@code element}, or the last chunk. */
        @SuppressWarnings("unchecked")
        private int chunkFor(T element) {
            int low = 0;
            int high = count - 1;
            while (low < high) {
                int mid = (low + high) >>> 1;
                Object[] chunk = chunks[mid];
                if (order.compare((T) chunk[chunk.length - 1], element) < 0) {
                    low = mid + 1;
                } else {
                    high = mid;
                }
            }
            return low;
        }

        /** The next chunk that gains or loses elements, or chunkCount if none is left. */
        private int nextTouched() {
            int r = nextRemoval < removed.length ? removedChunk[nextRemoval] : count;
            int a = nextAddition < addedChunk.length ? addedChunk[nextAddition] : count;
            return Math.min(r, a);
        }

        ChunkedSortedSet<T> apply() {
            int min = minChunk();
            // Room for the usual outcome, so the directory is allocated once: one chunk may split in two.
            Builder out = new Builder(count + 1 + 2 * ((added.size() + maxChunk - 1) / maxChunk));
            int c = 0;
            for (int touched = nextTouched(); touched < count; touched = nextTouched()) {
                out.addAll(c, touched);
                Object[] piece = rebuild(touched);
                c = touched + 1;
                if (piece.length == 0) {
                    continue;
                }
                // Too short: take in the following chunks (rebuilt if they change too), else the previous one.
                while (piece.length < min && c < count) {
                    piece = concat(piece, nextTouched() == c ? rebuild(c) : chunks[c]);
                    c++;
                }
                if (piece.length < min && out.size > 0) {
                    piece = concat(out.removeLast(), piece);
                }
                out.addSplit(piece);
            }
            out.addAll(c, count);
            return out.build();
        }

        /**
         * Chunk {@code c} without its removals and with its additions, consuming both. Each addition's place
         * is found by binary search and the runs between are block-copied: comparisons are what costs here.
         */
        @SuppressWarnings("unchecked")
        private Object[] rebuild(int c) {
            int rFrom = nextRemoval;
            while (nextRemoval < removed.length && removedChunk[nextRemoval] == c) {
                nextRemoval++;
            }
            int aFrom = nextAddition;
            while (nextAddition < addedChunk.length && addedChunk[nextAddition] == c) {
                nextAddition++;
            }
            Object[] chunk = chunks[c];
            int base = starts[c];
            Object[] out = new Object[chunk.length - (nextRemoval - rFrom) + (nextAddition - aFrom)];
            int n = 0;
            int from = 0;
            int r = rFrom;
            for (int a = aFrom; a < nextAddition; a++) {
                T element = added.get(a);
                int at = lowerBound(chunk, from, element);
                if (at < chunk.length && order.compare((T) chunk[at], element) == 0 && !isRemoved(base + at, r)) {
                    throw new IllegalArgumentException("already present: " + chunk[at]);
                }
                n = copyKept(chunk, from, at, base, out, n, r);
                r = skipRemovals(base + at, r);
                out[n++] = element;
                from = at;
            }
            copyKept(chunk, from, chunk.length, base, out, n, r);
            return out;
        }

        /** First position at or after {@code from} whose element does not precede {@code element}. */
        @SuppressWarnings("unchecked")
        private int lowerBound(Object[] chunk, int from, T element) {
            int low = from;
            int high = chunk.length;
            while (low < high) {
                int mid = (low + high) >>> 1;
                if (order.compare((T) chunk[mid], element) < 0) {
                    low = mid + 1;
                } else {
                    high = mid;
                }
            }
            return low;
        }

        private boolean isRemoved(int position, int r) {
            r = skipRemovals(position, r);
            return r < nextRemoval && removed[r] == position;
        }

        /** The first removal index at or after {@code r} whose position is at least {@code position}. */
        private int skipRemovals(int position, int r) {
            while (r < nextRemoval && removed[r] < position) {
                r++;
            }
            return r;
        }

        /** Copies {@code chunk[from, to)} minus removed positions to {@code out} at {@code n}; returns the new n. */
        private int copyKept(Object[] chunk, int from, int to, int base, Object[] out, int n, int r) {
            int i = from;
            r = skipRemovals(base + from, r);
            while (i < to) {
                int stop = r < nextRemoval ? Math.min(to, removed[r] - base) : to;
                System.arraycopy(chunk, i, out, n, stop - i);
                n += stop - i;
                i = stop;
                if (i < to) {
                    i++; // removed[r] == base + i: skip it
                    r++;
                }
            }
            return n;
        }
    }

    /** The new directory, grown as pieces are appended; runs of shared chunks are block-copied. */
    private final class Builder {
        private Object[][] out;
        private int size;

        Builder(int capacity) {
            out = new Object[Math.max(1, capacity)][];
        }

        void addAll(int fromChunk, int toChunk) {
            int n = toChunk - fromChunk;
            ensure(n);
            System.arraycopy(chunks, fromChunk, out, size, n);
            size += n;
        }

        /** Appends {@code piece}, split evenly into chunks of at most maxChunk if it is longer. */
        void addSplit(Object[] piece) {
            int parts = (piece.length + maxChunk - 1) / maxChunk;
            ensure(parts);
            if (parts <= 1) {
                out[size++] = piece;
                return;
            }
            int from = 0;
            for (int p = 0; p < parts; p++) {
                int to = (int) ((long) piece.length * (p + 1) / parts);
                out[size++] = Arrays.copyOfRange(piece, from, to);
                from = to;
            }
        }

        Object[] removeLast() {
            Object[] last = out[--size];
            out[size] = null; // a spare slot must not keep a replaced chunk alive
            return last;
        }

        private void ensure(int more) {
            if (size + more > out.length) {
                out = Arrays.copyOf(out, Math.max(size + more, out.length * 2));
            }
        }

        ChunkedSortedSet<T> build() {
            int[] newStarts = new int[size + 1];
            for (int c = 0; c < size; c++) {
                newStarts[c + 1] = newStarts[c] + out[c].length;
            }
            return new ChunkedSortedSet<>(order, maxChunk, out, size, newStarts);
        }
    }

    private static Object[] concat(Object[] first, Object[] second) {
        Object[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}

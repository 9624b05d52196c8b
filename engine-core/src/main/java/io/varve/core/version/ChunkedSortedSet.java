package io.varve.core.version;

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
    private final Object[][] chunks;
    private final int[] starts;

    private ChunkedSortedSet(Comparator<? super T> order, int maxChunk, Object[][] chunks, int[] starts) {
        this.order = order;
        this.maxChunk = maxChunk;
        this.chunks = chunks;
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
        return new ChunkedSortedSet<>(order, maxChunk, NO_CHUNKS, NO_STARTS);
    }

    int size() {
        return starts[chunks.length];
    }

    int chunkCount() {
        return chunks.length;
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
        int high = chunks.length - 1;
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
        int high = chunks.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            Object[] chunk = chunks[mid];
            if (atOrAfter.test((T) chunk[chunk.length - 1])) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        if (low == chunks.length) {
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
                return c < chunks.length;
            }

            @Override
            @SuppressWarnings("unchecked")
            public T next() {
                if (c >= chunks.length) {
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
     * chunkCount + additions × log n), and never touches unchanged chunks.
     *
     * @throws IllegalArgumentException if an addition compares equal to another addition or to an element
     *     that stays
     */
    ChunkedSortedSet<T> with(int[] removals, List<? extends T> additions) {
        int[] removed = removals.clone();
        Arrays.sort(removed);
        List<T> added = new ArrayList<>(additions);
        added.sort(order);
        for (int i = 1; i < added.size(); i++) {
            if (order.compare(added.get(i - 1), added.get(i)) == 0) {
                throw new IllegalArgumentException("added twice: " + added.get(i));
            }
        }
        if (removed.length > 0 && (removed[0] < 0 || removed[removed.length - 1] >= size())) {
            throw new IndexOutOfBoundsException("removal out of range 0.." + size() + ": " + Arrays.toString(removals));
        }
        if (removed.length == 0 && added.isEmpty()) {
            return this;
        }

        // Each addition goes to the first chunk whose last element follows it, or to the last chunk.
        int slots = Math.max(1, chunks.length);
        int[] addFrom = new int[slots + 1];
        int a = 0;
        for (int c = 0; c < slots; c++) {
            addFrom[c] = a;
            if (c == slots - 1) {
                a = added.size();
            } else {
                Object[] chunk = chunks[c];
                @SuppressWarnings("unchecked")
                T last = (T) chunk[chunk.length - 1];
                a = firstAddedAfter(added, a, last);
            }
        }
        addFrom[slots] = added.size();

        List<Object[]> pieces = new ArrayList<>(slots + 2);
        List<Boolean> fresh = new ArrayList<>(slots + 2);
        int r = 0;
        for (int c = 0; c < slots; c++) {
            Object[] chunk = c < chunks.length ? chunks[c] : new Object[0];
            int base = c < chunks.length ? starts[c] : 0;
            int removeFrom = r;
            while (r < removed.length && removed[r] < base + chunk.length) {
                r++;
            }
            boolean touched = r > removeFrom || addFrom[c + 1] > addFrom[c];
            pieces.add(touched ? merged(chunk, base, removed, removeFrom, r, added, addFrom[c], addFrom[c + 1]) : chunk);
            fresh.add(touched);
        }
        return rebuilt(normalized(pieces, fresh));
    }

    /** First position at or after {@code from} in sorted {@code added} whose element follows {@code bound}. */
    private int firstAddedAfter(List<T> added, int from, T bound) {
        int low = from;
        int high = added.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (order.compare(added.get(mid), bound) <= 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** {@code chunk} without the removed positions {@code removed[rFrom, rTo)}, merged with {@code added[aFrom, aTo)}. */
    @SuppressWarnings("unchecked")
    private Object[] merged(Object[] chunk, int base, int[] removed, int rFrom, int rTo, List<T> added, int aFrom, int aTo) {
        int distinctRemovals = 0;
        for (int i = rFrom; i < rTo; i++) {
            if (i == rFrom || removed[i] != removed[i - 1]) {
                distinctRemovals++;
            }
        }
        Object[] out = new Object[chunk.length - distinctRemovals + (aTo - aFrom)];
        int n = 0;
        int r = rFrom;
        int a = aFrom;
        for (int i = 0; i < chunk.length; i++) {
            if (r < rTo && removed[r] == base + i) {
                while (r < rTo && removed[r] == base + i) {
                    r++;
                }
                continue;
            }
            T kept = (T) chunk[i];
            while (a < aTo) {
                int cmp = order.compare(added.get(a), kept);
                if (cmp == 0) {
                    throw new IllegalArgumentException("already present: " + kept);
                }
                if (cmp > 0) {
                    break;
                }
                out[n++] = added.get(a++);
            }
            out[n++] = kept;
        }
        while (a < aTo) {
            out[n++] = added.get(a++);
        }
        return out;
    }

    /**
     * Restores the chunk-size invariants around rebuilt pieces: empty ones vanish, short ones absorb a
     * neighbour, long ones are split evenly. Pieces that were not rebuilt are kept as they are unless a short
     * neighbour absorbs them.
     */
    private List<Object[]> normalized(List<Object[]> pieces, List<Boolean> fresh) {
        int min = minChunk();
        List<Object[]> out = new ArrayList<>(pieces.size() + 2);
        for (int i = 0; i < pieces.size(); i++) {
            Object[] piece = pieces.get(i);
            if (!fresh.get(i)) {
                out.add(piece);
                continue;
            }
            if (piece.length == 0) {
                continue;
            }
            if (piece.length < min) {
                if (i + 1 < pieces.size()) {
                    pieces.set(i + 1, concat(piece, pieces.get(i + 1)));
                    fresh.set(i + 1, true);
                    continue;
                }
                if (!out.isEmpty()) {
                    piece = concat(out.removeLast(), piece);
                }
            }
            splitInto(out, piece);
        }
        return out;
    }

    private void splitInto(List<Object[]> out, Object[] piece) {
        int parts = (piece.length + maxChunk - 1) / maxChunk;
        if (parts <= 1) {
            out.add(piece);
            return;
        }
        int from = 0;
        for (int p = 0; p < parts; p++) {
            int to = (int) ((long) piece.length * (p + 1) / parts);
            out.add(Arrays.copyOfRange(piece, from, to));
            from = to;
        }
    }

    private static Object[] concat(Object[] first, Object[] second) {
        Object[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private ChunkedSortedSet<T> rebuilt(List<Object[]> pieces) {
        Object[][] newChunks = pieces.toArray(NO_CHUNKS);
        int[] newStarts = new int[newChunks.length + 1];
        for (int c = 0; c < newChunks.length; c++) {
            newStarts[c + 1] = newStarts[c] + newChunks[c].length;
        }
        return new ChunkedSortedSet<>(order, maxChunk, newChunks, newStarts);
    }
}

package io.varve.core.internal.rangedel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Range tombstones cut into non-overlapping fragments, so that a read asks one binary search instead of
 * checking every tombstone (RocksDB's and Pebble's fragmenters work the same way). Every boundary of every
 * tombstone becomes a fragment boundary; each fragment lists, newest first, the sequences of all tombstones
 * that cover it. Immutable; built once per memtable snapshot or table.
 *
 * <p>Building sorts the boundaries once: O(n log n + total fragment entries).
 */
public final class FragmentedTombstones {

    private static final FragmentedTombstones EMPTY = new FragmentedTombstones(new byte[0][], new byte[0][], new long[0][]);

    /** Fragment i covers {@code [begins[i], ends[i])}; fragments are sorted and do not overlap. */
    private final byte[][] begins;
    private final byte[][] ends;
    /** Per fragment, the covering tombstones' distinct sequences in descending order; never empty. */
    private final long[][] sequences;

    private FragmentedTombstones(byte[][] begins, byte[][] ends, long[][] sequences) {
        this.begins = begins;
        this.ends = ends;
        this.sequences = sequences;
    }

    public static FragmentedTombstones empty() {
        return EMPTY;
    }

    public static FragmentedTombstones of(Collection<RangeTombstone> tombstones) {
        if (tombstones.isEmpty()) {
            return EMPTY;
        }
        TreeSet<byte[]> boundaries = new TreeSet<>(Arrays::compareUnsigned);
        for (RangeTombstone t : tombstones) {
            boundaries.add(t.begin());
            boundaries.add(t.end());
        }
        byte[][] points = boundaries.toArray(new byte[0][]);
        List<List<Long>> covering = new ArrayList<>(points.length);
        for (int i = 0; i < points.length; i++) {
            covering.add(new ArrayList<>());
        }
        for (RangeTombstone t : tombstones) {
            int from = Arrays.binarySearch(points, t.begin(), Arrays::compareUnsigned);
            int to = Arrays.binarySearch(points, t.end(), Arrays::compareUnsigned);
            for (int i = from; i < to; i++) {
                covering.get(i).add(t.sequence());
            }
        }
        List<byte[]> begins = new ArrayList<>();
        List<byte[]> ends = new ArrayList<>();
        List<long[]> sequences = new ArrayList<>();
        for (int i = 0; i + 1 < points.length; i++) {
            if (!covering.get(i).isEmpty()) {
                long[] descending = covering.get(i).stream().mapToLong(Long::longValue).distinct()
                        .map(s -> -s).sorted().map(s -> -s).toArray();
                begins.add(points[i]);
                ends.add(points[i + 1]);
                sequences.add(descending);
            }
        }
        return new FragmentedTombstones(begins.toArray(new byte[0][]), ends.toArray(new byte[0][]),
                sequences.toArray(new long[0][]));
    }

    public boolean isEmpty() {
        return sequences.length == 0;
    }

    /**
     * The newest sequence at or below {@code readSequence} of a tombstone covering {@code key}, or 0 when
     * none does. An entry of {@code key} with a smaller sequence is deleted for that reader.
     */
    public long coveringSequence(byte[] key, long readSequence) {
        Cover cover = cover(key, readSequence);
        return cover == null ? 0 : cover.sequence();
    }

    /**
     * The fragment around {@code key} with its newest sequence at or below {@code readSequence}, or null when
     * no tombstone visible to that reader covers the key. Every key of the fragment is covered alike.
     */
    public Cover cover(byte[] key, long readSequence) {
        int at = Arrays.binarySearch(begins, key, Arrays::compareUnsigned);
        int fragment = at >= 0 ? at : -at - 2;
        if (fragment < 0 || Arrays.compareUnsigned(key, ends[fragment]) >= 0) {
            return null;
        }
        for (long sequence : sequences[fragment]) {
            if (sequence <= readSequence) {
                return new Cover(begins[fragment], ends[fragment], sequence);
            }
        }
        return null;
    }

    /** Whether an entry of {@code key} written at {@code entrySequence} is deleted for a reader at {@code readSequence}. */
    public boolean hides(byte[] key, long entrySequence, long readSequence) {
        return coveringSequence(key, readSequence) > entrySequence;
    }

    /** The fragments as tombstones, one per fragment and covering sequence, in key order, newest first. */
    public List<RangeTombstone> fragments() {
        List<RangeTombstone> result = new ArrayList<>();
        for (int i = 0; i < sequences.length; i++) {
            for (long sequence : sequences[i]) {
                result.add(new RangeTombstone(begins[i], ends[i], sequence));
            }
        }
        return result;
    }
}

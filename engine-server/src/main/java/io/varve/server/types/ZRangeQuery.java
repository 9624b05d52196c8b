package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.server.store.Metadata;
import io.varve.server.store.ZSetStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Range reads of one sorted set, each a single bounded scan: by rank (from whichever end is nearer), by
 * score (a seek into the score index) and by member bytes (a seek into the member subkeys). Ranks have no
 * index: reaching rank r costs r skipped entries, as in a list.
 */
final class ZRangeQuery {

    private final ZSetStore store;
    private final ReadOptions options;
    private final byte[] key;
    private final Metadata meta;

    ZRangeQuery(ZSetStore store, ReadOptions options, byte[] key, Metadata meta) {
        this.store = store;
        this.options = options;
        this.key = key;
        this.meta = meta;
    }

    /** The members {@code range} selects, after LIMIT's {@code offset} and {@code count} (-1: all). */
    List<Scored> select(SortedRange range, boolean reverse, long offset, long count) {
        return switch (range) {
            case RankRange r -> byRank(r.start(), r.stop(), reverse);
            case ScoreRange r -> byScore(r, reverse, offset, count);
            case LexRange r -> byLex(r, reverse, offset, count);
        };
    }

    /**
     * Members at ranks {@code [start, stop]} (Redis's normalisation of negative and out-of-range indexes),
     * ranked from the highest score when {@code reverse}.
     */
    List<Scored> byRank(long start, long stop, boolean reverse) {
        long size = meta.size();
        if (start < 0) {
            start += size;
        }
        if (stop < 0) {
            stop += size;
        }
        if (start < 0) {
            start = 0;
        }
        if (start > stop || start >= size) {
            return List.of();
        }
        if (stop >= size) {
            stop = size - 1;
        }
        // Ranks in the scan direction 'reverse' == ranks counted from the other end in the opposite one.
        long fromStart = start;
        long fromEnd = size - 1 - stop;
        boolean scanReverse = fromEnd < fromStart ? !reverse : reverse;
        long skip = fromEnd < fromStart ? fromEnd : fromStart;
        int want = (int) Math.min(Integer.MAX_VALUE - 8, stop - start + 1);
        List<Scored> out = new ArrayList<>(Math.min(want, 1024));
        long[] skipped = {0};
        store.scanAll(options, key, meta, scanReverse, (member, score) -> {
            if (skipped[0] < skip) {
                skipped[0]++;
                return true;
            }
            out.add(new Scored(member, score));
            return out.size() < want;
        });
        if (scanReverse != reverse) {
            Collections.reverse(out);
        }
        return out;
    }

    /** Members whose score is in {@code range}, in (score, member) order or its reverse, after LIMIT. */
    List<Scored> byScore(ScoreRange range, boolean reverse, long offset, long count) {
        List<Scored> out = new ArrayList<>();
        if (range.isEmpty() || offset < 0 || count == 0) {
            return out;
        }
        long[] skipped = {0};
        store.scanByScore(options, key, meta, reverse ? range.max() : range.min(), reverse, (member, score) -> {
            if (reverse ? !range.belowMax(score) : !range.aboveMin(score)) {
                return true; // an excluded end: the seek lands on it
            }
            if (reverse ? !range.aboveMin(score) : !range.belowMax(score)) {
                return false;
            }
            if (skipped[0] < offset) {
                skipped[0]++;
                return true;
            }
            out.add(new Scored(member, score));
            return count < 0 || out.size() < count;
        });
        return out;
    }

    /** Members in {@code range} by byte order (or its reverse), after LIMIT. */
    List<Scored> byLex(LexRange range, boolean reverse, long offset, long count) {
        List<Scored> out = new ArrayList<>();
        if (range.emptyBecauseMinIsPlus() || offset < 0 || count == 0) {
            return out;
        }
        long[] skipped = {0};
        byte[] from = reverse ? range.max() : range.min();
        boolean inclusive = reverse ? !range.maxExclusive() : !range.minExclusive();
        store.scanByMember(options, key, meta, from, inclusive, reverse, (member, score) -> {
            if (reverse ? !range.aboveMin(member) : !range.belowMax(member)) {
                return false;
            }
            if (skipped[0] < offset) {
                skipped[0]++;
                return true;
            }
            out.add(new Scored(member, score));
            return count < 0 || out.size() < count;
        });
        return out;
    }

    /** How many members have a score in {@code range}. */
    long countByScore(ScoreRange range) {
        if (range.isEmpty()) {
            return 0;
        }
        long[] n = {0};
        store.scanByScore(options, key, meta, range.min(), false, (member, score) -> {
            if (!range.aboveMin(score)) {
                return true;
            }
            if (!range.belowMax(score)) {
                return false;
            }
            n[0]++;
            return true;
        });
        return n[0];
    }

    long countByLex(LexRange range) {
        if (range.emptyBecauseMinIsPlus()) {
            return 0;
        }
        long[] n = {0};
        store.scanByMember(options, key, meta, range.min(), !range.minExclusive(), false, (member, score) -> {
            if (!range.belowMax(member)) {
                return false;
            }
            n[0]++;
            return true;
        });
        return n[0];
    }

    /** The 0-based rank of {@code member}, which is in the set (from the highest score when {@code reverse}). */
    long rankOf(byte[] member, boolean reverse) {
        long[] rank = {0};
        store.scanAll(options, key, meta, reverse, (m, s) -> {
            if (Arrays.equals(m, member)) {
                return false;
            }
            rank[0]++;
            return true;
        });
        return rank[0];
    }
}

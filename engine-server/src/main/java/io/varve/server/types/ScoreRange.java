package io.varve.server.types;

/** Scores {@code [min, max]} with either end exclusive; the ends may be infinite. */
public record ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive)
        implements SortedRange {

    public boolean aboveMin(double score) {
        return minExclusive ? score > min : score >= min;
    }

    public boolean belowMax(double score) {
        return maxExclusive ? score < max : score <= max;
    }

    public boolean contains(double score) {
        return aboveMin(score) && belowMax(score);
    }

    public boolean isEmpty() {
        return min > max || (min == max && (minExclusive || maxExclusive));
    }
}

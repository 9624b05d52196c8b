package io.varve.server.types;

/** Ranks {@code [start, stop]}, negative ones counted from the end, as ZRANGE takes them. */
public record RankRange(long start, long stop) implements SortedRange {
}

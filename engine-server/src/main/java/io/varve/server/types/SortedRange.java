package io.varve.server.types;

/** Which members of a sorted set a range command selects: by rank, by score or by member bytes. */
public sealed interface SortedRange permits RankRange, ScoreRange, LexRange {
}

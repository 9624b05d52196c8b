package io.varve.server.types;

/** A sorted-set member with its score, as range reads and pops return them. */
public record Scored(byte[] member, double score) {
}

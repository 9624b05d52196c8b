package io.varve.server.types;

/** How SINTER, SUNION and SDIFF (and their STORE forms) combine their operands. */
public enum SetOperation {
    INTERSECTION, UNION, DIFFERENCE
}

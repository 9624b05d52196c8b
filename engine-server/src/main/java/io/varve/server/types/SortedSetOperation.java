package io.varve.server.types;

/** How ZUNION, ZINTER and ZDIFF (and their STORE forms) combine their inputs. */
public enum SortedSetOperation {
    UNION, INTERSECTION, DIFFERENCE
}

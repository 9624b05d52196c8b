package io.varve.core.internal.version;

/** One column family as the manifest left it: its tables (as one edit) and its log number. */
public record RecoveredFamily(int id, String name, long logNumber, VersionEdit tables) {
}

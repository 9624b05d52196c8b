package io.varve.core.internal.compaction;

import io.varve.core.compaction.CompactionSettings;
import io.varve.core.internal.version.LevelFiles;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

import java.util.List;
import java.util.Set;

/**
 * Chooses the next compaction by score, as leveled compaction does: level 0 scores its file count against
 * the trigger, deeper levels their size against their target; the highest score at or above 1 wins. Tables
 * already being compacted ({@code busy}) are never picked again, so several compactions can run at once on
 * disjoint inputs. Not thread-safe: the caller serializes picks.
 */
public final class CompactionPicker {

    private final CompactionSettings settings;
    /** Per level, the largest key of the last table compacted from it: picks rotate through the key space. */
    private final byte[][] compactPointer = new byte[Version.NUM_LEVELS][];

    public CompactionPicker(CompactionSettings settings) {
        this.settings = settings;
    }

    public double score(Version version, int level) {
        if (level == 0) {
            return version.level(0).size() / (double) settings.level0FileTrigger();
        }
        if (level == Version.NUM_LEVELS - 1) {
            return 0;
        }
        return version.levelBytes(level) / (double) settings.targetBytes(level);
    }

    /** The most urgent compaction not touching busy tables, or null if no level needs one. */
    public Compaction pick(Version version, Set<Long> busy) {
        int best = -1;
        double bestScore = 1.0;
        for (int level = 0; level < Version.NUM_LEVELS - 1; level++) {
            double s = score(version, level);
            if (s >= bestScore && pickAt(version, level, busy) != null) {
                best = level;
                bestScore = s;
            }
        }
        if (best < 0) {
            return null;
        }
        Compaction c = pickAt(version, best, busy);
        if (best > 0) {
            compactPointer[best] = c.inputs()[c.inputs().length - 1].largestKey();
        }
        return c;
    }

    private Compaction pickAt(Version version, int level, Set<Long> busy) {
        if (level == 0) {
            // All of level 0 at once: its tables overlap, and older ones must not move below newer ones.
            TableMeta[] inputs = version.level(0).toArray(new TableMeta[0]);
            if (inputs.length == 0 || anyBusy(inputs, busy)) {
                return null;
            }
            return withOutputLevel(version, 0, inputs, busy, false);
        }
        LevelFiles tables = version.level(level);
        if (tables.isEmpty()) {
            return null;
        }
        // Binary search, not a scan: a level may hold 100,000 tables and a pick follows every flush and compaction.
        int start = compactPointer[level] == null ? 0 : tables.firstEndingAfter(compactPointer[level]);
        for (int i = 0; i < tables.size(); i++) {
            TableMeta candidate = tables.get((start + i) % tables.size());
            if (busy.contains(candidate.fileNumber())) {
                continue;
            }
            Compaction c = withOutputLevel(version, level, new TableMeta[] {candidate}, busy, false);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /**
     * A manual compaction of {@code level}'s tables overlapping {@code [begin, end]} (null = unbounded) into
     * the next level, or null if none overlap.
     */
    public Compaction manual(Version version, int level, byte[] begin, byte[] end, Set<Long> busy) {
        return manual(version, level, begin, end, busy, false);
    }

    /**
     * As {@link #manual(Version, int, byte[], byte[], Set)}; with {@code intoItself}, the tables are rewritten
     * into their own level (for the bottom level, where old versions and filtered values are only dropped
     * by rewriting it).
     */
    public Compaction manual(Version version, int level, byte[] begin, byte[] end, Set<Long> busy, boolean intoItself) {
        List<TableMeta> inputs = version.level(level).overlapping(begin, end);
        if (level == 0 && !inputs.isEmpty()) {
            inputs = version.level(0);
        }
        if (inputs.isEmpty()) {
            return null;
        }
        if (intoItself) {
            if (level == 0) {
                throw new IllegalArgumentException("level 0 is compacted into level 1, not into itself");
            }
            return new Compaction(level, level, inputs.toArray(new TableMeta[0]), new TableMeta[0], true);
        }
        return withOutputLevel(version, level, inputs.toArray(new TableMeta[0]), busy, true);
    }

    private Compaction withOutputLevel(Version version, int level, TableMeta[] inputs, Set<Long> busy, boolean manual) {
        byte[][] range = Compaction.keyRange(inputs);
        TableMeta[] next = Compaction.overlapping(version, level + 1, range[0], range[1]);
        if (anyBusy(next, busy)) {
            return null;
        }
        return new Compaction(level, level + 1, inputs, next, manual);
    }

    private static boolean anyBusy(TableMeta[] tables, Set<Long> busy) {
        for (TableMeta t : tables) {
            if (busy.contains(t.fileNumber())) {
                return true;
            }
        }
        return false;
    }

    /** Bytes above their targets across levels: a rough measure of compaction debt, for write stalls. */
    public long pendingBytes(Version version) {
        long pending = 0;
        for (int level = 1; level < Version.NUM_LEVELS - 1; level++) {
            long excess = version.levelBytes(level) - settings.targetBytes(level);
            if (excess > 0) {
                pending += excess;
            }
        }
        if (version.level(0).size() >= settings.level0FileTrigger()) {
            pending += version.levelBytes(0);
        }
        return pending;
    }
}

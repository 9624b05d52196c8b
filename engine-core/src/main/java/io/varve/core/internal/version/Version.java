package io.varve.core.internal.version;

import io.varve.base.RefCount;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;


/**
 * An immutable snapshot of which tables make up the database: the "storage info". Level 0 holds flushed
 * tables that may overlap, newest first; every deeper level holds non-overlapping tables sorted by key.
 *
 * <p>A version is reference counted by whoever reads through it (read views, compactions). Its tables stay
 * on disk while it lives; see {@link VersionSet} for how obsolete tables are found without touching every
 * table of every version.
 */
public final class Version {

    public static final int NUM_LEVELS = 7;

    private final long id;
    private final LevelFiles[] levels;
    private final int tableCount;
    private final RefCount references;
    private final VersionSet owner;

    Version(long id, LevelFiles[] levels, VersionSet owner) {
        this.id = id;
        this.levels = levels;
        this.owner = owner;
        int n = 0;
        for (LevelFiles level : levels) {
            n += level.size();
        }
        this.tableCount = n;
        this.references = new RefCount("version " + id);
    }

    static Version empty(VersionSet owner) {
        LevelFiles[] levels = new LevelFiles[NUM_LEVELS];
        for (int level = 0; level < NUM_LEVELS; level++) {
            levels[level] = LevelFiles.empty(level);
        }
        return new Version(0, levels, owner);
    }

    static void checkLevel(int level) {
        if (level < 0 || level >= NUM_LEVELS) {
            throw new IllegalArgumentException("level must be in [0, " + NUM_LEVELS + "): " + level);
        }
    }

    /**
     * The tables of this version with {@code edit} applied. Levels the edit does not touch are shared; a
     * touched level copies only the chunks that change plus its directory ({@link LevelFiles#applied}), so an
     * edit costs O(changed tables × chunk size + tables / chunk size) rather than O(tables in the level).
     * Meant to run outside every lock.
     */
    LevelFiles[] applied(VersionEdit edit) {
        LevelFiles[] next = levels.clone();
        for (int level = 0; level < NUM_LEVELS; level++) {
            // A set: an edit naming a table twice removes it once, as replay in VersionSet.recover does.
            Set<Long> removed = Set.of();
            List<TableMeta> added = List.of();
            for (VersionEdit.Removed r : edit.removed()) {
                if (r.level() == level) {
                    if (removed.isEmpty()) {
                        removed = new LinkedHashSet<>();
                    }
                    removed.add(r.fileNumber());
                }
            }
            for (VersionEdit.Added a : edit.added()) {
                if (a.level() == level) {
                    if (added.isEmpty()) {
                        added = new ArrayList<>();
                    }
                    added.add(a.table());
                }
            }
            next[level] = levels[level].applied(removed, added);
        }
        return next;
    }

    public long id() {
        return id;
    }

    /** The tables of a level, in read order: level 0 newest first, deeper levels by key. */
    public LevelFiles level(int level) {
        return levels[level];
    }

    public int tableCount() {
        return tableCount;
    }

    public long levelBytes(int level) {
        return levels[level].totalBytes();
    }

    /** In a sorted level, the only table that may hold {@code userKey}, or null. Binary search. */
    public TableMeta findInSortedLevel(int level, MemorySegment userKey) {
        return levels[level].findCovering(userKey);
    }

    public boolean tryRetain() {
        return references.tryRetain();
    }

    public void retain() {
        references.retain();
    }

    /** Drops a reference; the last one hands the version to the reclaimer (never freed on this thread). */
    public void release() {
        if (references.release()) {
            owner.versionReleased(this);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Version[" + id);
        for (int level = 0; level < NUM_LEVELS; level++) {
            if (!levels[level].isEmpty()) {
                sb.append(", L").append(level).append('=').append(levels[level].size());
            }
        }
        return sb.append(']').toString();
    }
}

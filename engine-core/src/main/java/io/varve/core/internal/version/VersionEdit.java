package io.varve.core.internal.version;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One change to the set of tables, and to the counters that must survive a restart. Edits are what the
 * manifest stores ({@link VersionEditFormat}); replaying them in order rebuilds the current version.
 * Not thread-safe: built by one thread, then handed over.
 */
public final class VersionEdit {

    /** A table added at a level. */
    public record Added(int level, TableMeta table) {
    }

    /** A table removed from a level. */
    public record Removed(int level, long fileNumber) {
    }

    static final long UNSET = -1;

    private int columnFamily;
    private String addedColumnFamily;
    private boolean droppedColumnFamily;
    private int nextColumnFamily = (int) UNSET;
    private long logNumber = UNSET;
    private long nextFileNumber = UNSET;
    private long lastSequence = UNSET;
    private final List<Added> added = new ArrayList<>();
    private final List<Removed> removed = new ArrayList<>();

    /** The column family whose tables and log number this edit changes (0, the default, unless set). */
    public VersionEdit columnFamily(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("column family id " + id);
        }
        this.columnFamily = id;
        return this;
    }

    /** Marks this edit as the creation of column family {@link #columnFamily()} under {@code name}. */
    public VersionEdit addColumnFamily(String name) {
        this.addedColumnFamily = name;
        return this;
    }

    /** Marks this edit as dropping column family {@link #columnFamily()}. */
    public VersionEdit dropColumnFamily() {
        this.droppedColumnFamily = true;
        return this;
    }

    /** Column family ids below this have been handed out; recorded so a dropped id is never reused. */
    public VersionEdit nextColumnFamily(int id) {
        this.nextColumnFamily = id;
        return this;
    }

    public int columnFamily() {
        return columnFamily;
    }

    /** The name of the column family this edit creates, or null. */
    public String addedColumnFamily() {
        return addedColumnFamily;
    }

    public boolean droppedColumnFamily() {
        return droppedColumnFamily;
    }

    public int nextColumnFamily() {
        return nextColumnFamily;
    }

    /** Logs numbered below this hold nothing of this column family that is not in tables: recovery skips them. */
    public VersionEdit logNumber(long number) {
        this.logNumber = number;
        return this;
    }

    public VersionEdit nextFileNumber(long number) {
        this.nextFileNumber = number;
        return this;
    }

    public VersionEdit lastSequence(long sequence) {
        this.lastSequence = sequence;
        return this;
    }

    public VersionEdit add(int level, TableMeta table) {
        Version.checkLevel(level);
        added.add(new Added(level, table));
        return this;
    }

    public VersionEdit remove(int level, long fileNumber) {
        Version.checkLevel(level);
        removed.add(new Removed(level, fileNumber));
        return this;
    }

    public long logNumber() {
        return logNumber;
    }

    public long nextFileNumber() {
        return nextFileNumber;
    }

    public long lastSequence() {
        return lastSequence;
    }

    public List<Added> added() {
        return added;
    }

    public List<Removed> removed() {
        return removed;
    }

    /** Tables the edit takes out of the family: removed and not added back at another level. */
    public List<Long> tablesLeaving() {
        Set<Long> staying = new HashSet<>();
        added.forEach(a -> staying.add(a.table().fileNumber()));
        return removed.stream().map(Removed::fileNumber).filter(n -> !staying.contains(n)).toList();
    }

    /** Tables the edit brings into the family: added and not merely moved from another level. */
    public List<Long> tablesArriving() {
        Set<Long> moving = new HashSet<>();
        removed.forEach(r -> moving.add(r.fileNumber()));
        return added.stream().map(a -> a.table().fileNumber()).filter(n -> !moving.contains(n)).toList();
    }

    @Override
    public String toString() {
        return "VersionEdit[cf=" + columnFamily + (addedColumnFamily != null ? " +" + addedColumnFamily : "")
                + (droppedColumnFamily ? " dropped" : "") + ", log=" + logNumber + ", nextFile=" + nextFileNumber + ", lastSeq=" + lastSequence
                + ", added=" + added + ", removed=" + removed + "]";
    }
}

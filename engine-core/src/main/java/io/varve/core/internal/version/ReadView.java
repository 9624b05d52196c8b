package io.varve.core.internal.version;

import io.varve.base.RefCount;
import io.varve.core.internal.memtable.Memtable;

import java.util.ArrayList;
import java.util.List;


/**
 * Everything a reader needs to see the database at one moment: the mutable memtable, the immutable ones
 * (newest first) and the {@link Version} holding the tables. Immutable; {@link VersionSet} publishes a new
 * one whenever any part changes.
 *
 * <p>Reference counted: the version set holds one reference to the current view and each reader holds one
 * while reading. The view holds a reference on each memtable and on its version; when its own count reaches
 * zero it hands them to the reclaimer, so a reader's {@link #release()} never frees memory itself.
 * {@link #tryRetain()} fails on a view that already reached zero — a view is never resurrected.
 */
public final class ReadView {

    private final Memtable mutable;
    private final List<Memtable> immutables;
    private final Version version;
    private final Reclaimer reclaimer;
    private final RefCount references = new RefCount("read view");

    ReadView(Memtable mutable, List<Memtable> immutables, Version version, Reclaimer reclaimer) {
        this.mutable = mutable;
        this.immutables = List.copyOf(immutables);
        this.version = version;
        this.reclaimer = reclaimer;
        mutable.retain();
        for (Memtable m : this.immutables) {
            m.retain();
        }
        version.retain();
    }

    public Memtable mutable() {
        return mutable;
    }

    /** Immutable memtables, newest first. */
    public List<Memtable> immutables() {
        return immutables;
    }

    public Version version() {
        return version;
    }

    /** All memtables newest first: the order a point lookup consults them. */
    public List<Memtable> memtablesNewestFirst() {
        List<Memtable> all = new ArrayList<>(immutables.size() + 1);
        all.add(mutable);
        all.addAll(immutables);
        return all;
    }

    public boolean tryRetain() {
        return references.tryRetain();
    }

    public void release() {
        if (references.release()) {
            reclaimer.submit(() -> {
                mutable.release();
                immutables.forEach(Memtable::release);
                version.release();
            });
        }
    }
}

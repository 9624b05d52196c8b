package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Options;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.merge.MergeOperator;
import io.varve.core.internal.version.VersionSet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The column-family registry: the handles this database gave out, by id, with each family's options. A
 * handle's owner is this registry, so a handle of another database is recognized as foreign.
 *
 * <p>The table of families is replaced, never changed in place, under {@code lock}, and read without it:
 * readers see one consistent table. Creating and dropping run under {@code lock}, so a family's manifest
 * record, its memtable in the commit pipeline and its slot here change together.
 */
public final class ColumnFamilies {

    /** A live family: its handle and options. */
    record Family(ColumnFamily handle, ColumnFamilyOptions options) {
    }

    private final Object lock = new Object();
    private final VersionSet versions;
    private final CommitPipeline pipeline;
    private final Runnable checkOpen;
    private final Consumer<IOException> onFailure;
    private final ColumnFamily defaultFamily;
    /** Live families by id (null: dropped or never used). */
    private volatile Family[] families;

    /**
     * @param recovered the families recovery found, with their options
     * @param checkOpen throws the closed state once the database is closed
     * @param onFailure fails the database after a manifest write failed
     */
    ColumnFamilies(List<DbRecovery.FamilyInfo> recovered, VersionSet versions, CommitPipeline pipeline,
                   Runnable checkOpen, Consumer<IOException> onFailure) {
        this.versions = versions;
        this.pipeline = pipeline;
        this.checkOpen = checkOpen;
        this.onFailure = onFailure;
        Family[] known = new Family[recovered.stream().mapToInt(DbRecovery.FamilyInfo::id).max().orElse(0) + 1];
        for (DbRecovery.FamilyInfo f : recovered) {
            known[f.id()] = new Family(ApiAccess.get().newColumnFamily(this, f.id(), f.name()), f.options());
        }
        this.families = known;
        this.defaultFamily = known[VersionSet.DEFAULT_FAMILY].handle();
    }

    ColumnFamily defaultFamily() {
        return defaultFamily;
    }

    /** The live family's options, or null once it was dropped. */
    ColumnFamilyOptions options(int id) {
        Family f = family(id);
        return f == null ? null : f.options();
    }

    /** Refuses a merge into a family that has no merge operator to resolve it. */
    public void requireMergeOperator(int id) {
        ColumnFamilyOptions options = options(id);
        if (options != null && options.mergeOperator() == null) {
            throw new IllegalStateException("column family " + family(id).handle().name() + " has no merge "
                    + "operator; set one with ColumnFamilyOptions.withMergeOperator (Options.withMergeOperator "
                    + "for the default family)");
        }
    }

    public MergeOperator mergeOperator(int id) {
        ColumnFamilyOptions options = options(id);
        return options == null ? null : options.mergeOperator();
    }

    private Family family(int id) {
        Family[] all = families;
        return id >= 0 && id < all.length ? all[id] : null;
    }

    /** The id of a handle this database handed out and that was not dropped. */
    int id(ColumnFamily handle) {
        Objects.requireNonNull(handle, "family");
        if (ApiAccess.get().familyOwner(handle) != this) {
            throw new IllegalArgumentException(handle + " belongs to another database");
        }
        Family f = family(ApiAccess.get().familyId(handle));
        if (f == null || f.handle() != handle) {
            throw new IllegalArgumentException(handle + " was dropped");
        }
        return ApiAccess.get().familyId(handle);
    }

    ColumnFamily create(String name, ColumnFamilyOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(options, "options");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a column family name must not be empty");
        }
        synchronized (lock) {
            checkOpen.run();
            Memtable memtable = new Memtable(MemtableSet.capacity(options.writeBufferSize(), 0));
            try {
                // Durable first: the family's first write must find it in the manifest after a crash. Its log
                // number may lag behind a concurrent rotation; that only makes recovery read one more log.
                int id = versions.createColumnFamily(name, pipeline.currentLogNumber(), memtable);
                ColumnFamily handle = ApiAccess.get().newColumnFamily(this, id, name);
                Family[] next = Arrays.copyOf(families, Math.max(families.length, id + 1));
                next[id] = new Family(handle, options);
                families = next;
                pipeline.addFamily(id, memtable, options.writeBufferSize());
                return handle;
            } catch (IOException e) {
                onFailure.accept(e);
                throw new UncheckedIOException("creating column family " + name + " failed", e);
            } finally {
                memtable.release(); // the view holds it (or creation failed and nothing does)
            }
        }
    }

    void drop(ColumnFamily handle) {
        synchronized (lock) {
            checkOpen.run();
            int id = id(handle);
            if (id == VersionSet.DEFAULT_FAMILY) {
                throw new IllegalArgumentException("the default column family cannot be dropped");
            }
            // No new writes, and the ones assigned are in the memtable before its view goes.
            pipeline.removeFamily(id);
            Family[] next = families.clone();
            next[id] = null;
            families = next;
            try {
                versions.dropColumnFamily(id);
            } catch (IOException e) {
                onFailure.accept(e);
                throw new UncheckedIOException("dropping column family " + handle.name() + " failed", e);
            }
        }
    }

    Optional<ColumnFamily> byName(String name) {
        Objects.requireNonNull(name, "name");
        for (Family f : families) {
            if (f != null && f.handle().name().equals(name)) {
                return Optional.of(f.handle());
            }
        }
        return Optional.empty();
    }

    List<ColumnFamily> all() {
        List<ColumnFamily> result = new ArrayList<>();
        for (Family f : families) {
            if (f != null) {
                result.add(f.handle());
            }
        }
        return result;
    }
}

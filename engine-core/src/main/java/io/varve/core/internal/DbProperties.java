package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import io.varve.core.internal.version.VersionSet;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The named properties of {@link Db#getProperty} and {@link Db#getApproximateSizes}: the figures the meters
 * show ({@link DbStatistics}), and a few per column family, reachable without Micrometer. Names follow
 * RocksDB's with the {@code varve.} prefix; docs/operations.md lists them. Each read pins the family's view
 * for the call; nothing is cached.
 */
public final class DbProperties {

    static final String PREFIX = "varve.";
    static final String FILES_AT_LEVEL = PREFIX + "num-files-at-level";

    private final VersionSet versions;
    private final Activity activity;
    private final int oversizedRecordsAtOpen;

    /** The database-wide figures that come from its background work rather than from a family's view. */
    interface Activity {
        long pendingCompactionBytes();

        long compactionTablesMoved();

        long blockCacheBytes();

        boolean failed();

        boolean writesStopped();

        boolean writesSlowed();
    }

    /**
     * @param oversizedRecordsAtOpen log records the open found holding an entry too large for a table
     */
    DbProperties(VersionSet versions, DbStatistics statistics, WriteStalls stalls, BooleanSupplier failed,
                 int oversizedRecordsAtOpen) {
        this(versions, new Activity() {
            @Override
            public long pendingCompactionBytes() {
                return statistics.pendingCompactionBytes();
            }

            @Override
            public long compactionTablesMoved() {
                return statistics.compactionTablesMoved();
            }

            @Override
            public long blockCacheBytes() {
                return statistics.blockCacheBytes();
            }

            @Override
            public boolean failed() {
                return failed.getAsBoolean();
            }

            @Override
            public boolean writesStopped() {
                return stalls.writesStopped();
            }

            @Override
            public boolean writesSlowed() {
                return stalls.writesSlowed();
            }
        }, oversizedRecordsAtOpen);
    }

    DbProperties(VersionSet versions, Activity activity, int oversizedRecordsAtOpen) {
        this.versions = versions;
        this.activity = activity;
        this.oversizedRecordsAtOpen = oversizedRecordsAtOpen;
    }

    /** The property's value as text, or null if no property has that name. */
    String get(int family, String name) {
        if (name.startsWith(FILES_AT_LEVEL)) {
            int level = level(name.substring(FILES_AT_LEVEL.length()));
            return level < 0 ? null : Long.toString(withView(family, v -> v.version().level(level).size()));
        }
        if (name.equals(PREFIX + "levelstats")) {
            return withView(family, DbProperties::levelStats);
        }
        Long value = number(family, name);
        return value == null ? null : Long.toString(value);
    }

    /** The property's value as a number, or null if no numeric property has that name. */
    Long number(int family, String name) {
        if (name.startsWith(FILES_AT_LEVEL)) {
            int level = level(name.substring(FILES_AT_LEVEL.length()));
            return level < 0 ? null : (long) withView(family, v -> v.version().level(level).size());
        }
        return switch (name.substring(name.startsWith(PREFIX) ? PREFIX.length() : 0)) {
            case "total-sst-files-size" -> withView(family, v -> tableBytes(v.version()));
            case "estimate-live-data-size" -> withView(family, v -> liveDataBytes(v.version()));
            case "cur-size-all-mem-tables" -> withView(family, DbProperties::memtableBytes);
            case "cur-size-active-mem-table" -> withView(family, v -> v.mutable().approximateMemoryUsage());
            case "num-immutable-mem-table" -> withView(family, v -> (long) v.immutables().size());
            case "estimate-pending-compaction-bytes" -> activity.pendingCompactionBytes();
            case "compaction-tables-moved" -> activity.compactionTablesMoved();
            case "compaction-pending" -> activity.pendingCompactionBytes() > 0 ? 1L : 0L;
            case "block-cache-usage" -> activity.blockCacheBytes();
            case "background-errors" -> activity.failed() ? 1L : 0L;
            case "is-write-stopped" -> activity.writesStopped() ? 1L : 0L;
            case "is-write-slowed" -> activity.writesSlowed() ? 1L : 0L;
            case "num-live-versions" -> (long) versions.liveVersionCount();
            case "recovery-oversized-records" -> (long) oversizedRecordsAtOpen;
            default -> null;
        };
    }

    /**
     * Bytes of the tables whose key range overlaps each range {@code [start, limit)} (null: unbounded), whole
     * tables counted: cheap (no table is read), an over-estimate by at most one table per level at each end.
     * Memtables are not counted.
     */
    List<Long> approximateSizes(int family, List<Db.Range> ranges) {
        return withView(family, view -> {
            List<Long> sizes = new ArrayList<>(ranges.size());
            Version version = view.version();
            for (Db.Range range : ranges) {
                long bytes = 0;
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta t : version.level(level).overlapping(range.start(), range.limit())) {
                        if (range.limit() == null || Keys.compare(t.smallestKey(), range.limit()) < 0) {
                            bytes += t.fileSize();
                        }
                    }
                }
                sizes.add(bytes);
            }
            return sizes;
        });
    }

    private <T> T withView(int family, Function<ReadView, T> read) {
        ReadView view = versions.acquire(family);
        try {
            return read.apply(view);
        } finally {
            view.release();
        }
    }

    /** The level a {@code num-files-at-level<N>} suffix names, or -1. */
    private static int level(String digits) {
        if (digits.length() != 1 || !Character.isDigit(digits.charAt(0))) {
            return -1;
        }
        int level = digits.charAt(0) - '0';
        return level < Version.NUM_LEVELS ? level : -1;
    }

    private static long tableBytes(Version version) {
        long bytes = 0;
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            bytes += version.levelBytes(level);
        }
        return bytes;
    }

    /**
     * The deepest non-empty level's bytes, plus the tables of shallower levels whose key range lies outside
     * that level's span: data above the span is not yet merged with anything older, so it counts as live;
     * data inside it is assumed to replace what lies below (RocksDB's estimate reasons the same way, per
     * table).
     */
    private static long liveDataBytes(Version version) {
        int deepest = Version.NUM_LEVELS - 1;
        while (deepest > 0 && version.level(deepest).isEmpty()) {
            deepest--;
        }
        List<TableMeta> bottom = version.level(deepest);
        if (bottom.isEmpty()) {
            return 0;
        }
        byte[] low = bottom.getFirst().smallestKey();
        byte[] high = bottom.getLast().largestKey();
        if (deepest == 0) {
            return version.levelBytes(0);
        }
        long bytes = version.levelBytes(deepest);
        for (int level = 0; level < deepest; level++) {
            for (TableMeta t : version.level(level)) {
                if (Keys.compare(t.largestKey(), low) < 0 || Keys.compare(t.smallestKey(), high) > 0) {
                    bytes += t.fileSize();
                }
            }
        }
        return bytes;
    }

    private static long memtableBytes(ReadView view) {
        long bytes = view.mutable().approximateMemoryUsage();
        for (Memtable m : view.immutables()) {
            bytes += m.approximateMemoryUsage();
        }
        return bytes;
    }

    private static String levelStats(ReadView view) {
        StringBuilder text = new StringBuilder("Level Files Size(MB)\n");
        Version version = view.version();
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            text.append(String.format("%5d %5d %8.2f%n", level, version.level(level).size(),
                    version.levelBytes(level) / 1048576.0));
        }
        return text.toString();
    }
}

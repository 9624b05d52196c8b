package io.varve.core.internal.ingest;

import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

import java.util.List;

/**
 * Where ingested tables go. Reads take, for each key, the first entry they meet going down the levels
 * (memtables, level 0 newest first, then one table per deeper level), so an ingested table, newer than
 * everything stored, must sit above every table that holds its keys:
 * <ul>
 *   <li>it goes to the deepest level {@code L} such that no table of levels {@code 0..L} overlaps its key
 *       range, and no running compaction whose key range overlaps it writes into a level {@code <= L} (its
 *       outputs could otherwise land on top of it or next to it in a sorted level); when even level 1 is
 *       taken, it goes to level 0, whose newest-first order (by largest sequence) puts it above the rest;</li>
 *   <li>it must be newer than every overlapping table it lands above. A table in a level {@code >= 1}
 *       whose largest sequence is not below the ingestion's can only hold writes sequenced after it (they
 *       reached a table while the ingestion was being installed); then no placement is right, and the
 *       ingestion retries with a newer sequence.</li>
 * </ul>
 * A pure function of a version, O(log n) per sorted level plus the overlapping tables: the caller runs it
 * under the version set's manifest lock, with compaction picks held, so the decision and the installation
 * are one atomic step.
 */
public final class LevelPlacement {

    private LevelPlacement() {
    }

    /** The key range a running compaction writes into {@code outputLevel}. */
    public record BusyRange(int outputLevel, byte[] smallestKey, byte[] largestKey) {
    }

    /**
     * The level of each table, in the order given, or null when some table cannot be placed at
     * {@code sequence} (retry with a newer sequence).
     */
    public static int[] place(Version version, List<BusyRange> busy, List<ExternalTable> tables, long sequence) {
        int[] levels = new int[tables.size()];
        for (int i = 0; i < tables.size(); i++) {
            ExternalTable table = tables.get(i);
            int level = deepestFreeLevel(version, busy, table);
            if (newerTableBelow(version, table, level, sequence)) {
                return null;
            }
            levels[i] = level;
        }
        return levels;
    }

    private static int deepestFreeLevel(Version version, List<BusyRange> busy, ExternalTable table) {
        int chosen = 0;
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            if (overlapsLevel(version, level, table) || (level > 0 && busyUpTo(busy, level, table))) {
                break;
            }
            chosen = level;
        }
        return chosen;
    }

    private static boolean overlapsLevel(Version version, int level, ExternalTable table) {
        List<TableMeta> tables = version.level(level);
        if (level == 0) {
            for (TableMeta t : tables) {
                if (table.overlaps(t)) {
                    return true;
                }
            }
            return false;
        }
        int first = firstEndingAtOrAfter(tables, table.smallestKey());
        return first < tables.size() && table.overlaps(tables.get(first));
    }

    /** In a sorted level, the first table whose largest key is at or after {@code key}. Binary search. */
    private static int firstEndingAtOrAfter(List<TableMeta> sorted, byte[] key) {
        int low = 0;
        int high = sorted.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Keys.compare(sorted.get(mid).largestKey(), key) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private static boolean busyUpTo(List<BusyRange> busy, int level, ExternalTable table) {
        for (BusyRange range : busy) {
            if (range.outputLevel() <= level && table.overlaps(range.smallestKey(), range.largestKey())) {
                return true;
            }
        }
        return false;
    }

    private static boolean newerTableBelow(Version version, ExternalTable table, int placed, long sequence) {
        for (int level = Math.max(1, placed + 1); level < Version.NUM_LEVELS; level++) {
            List<TableMeta> tables = version.level(level);
            // The overlapping tables of a sorted level are contiguous.
            for (int i = firstEndingAtOrAfter(tables, table.smallestKey()); i < tables.size()
                    && Keys.compare(tables.get(i).smallestKey(), table.largestKey()) <= 0; i++) {
                if (tables.get(i).effectiveLargestSequence() >= sequence) {
                    return true;
                }
            }
        }
        return false;
    }
}

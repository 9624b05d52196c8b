package io.varve.kafka.streams.store;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import org.apache.kafka.streams.state.VersionedRecord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;

import static io.varve.kafka.streams.store.VersionedLayout.HISTORY_END;
import static io.varve.kafka.streams.store.VersionedLayout.HISTORY_START;

/**
 * The versions of every key of a versioned store, in one Varve database (layout in {@link VersionedLayout}).
 *
 * <p>A key's history is a sequence of points in time, each a value or a tombstone; a point holds from its
 * timestamp ({@code validFrom}) to the next point's ({@code validTo}). The newest point, when it is a value,
 * is the key's <em>latest value</em>, kept apart so that the reads a topology makes most, of the latest value,
 * cost one lookup. Every other point is an <em>older version</em> keyed by its {@code validFrom} and filed in
 * the segment of its {@code validTo} ({@code floorDiv(validTo, segmentInterval)}): a segment then holds the
 * versions that stopped holding within one interval of time, so once stream time has moved a history
 * retention past a segment's end, nothing in it can be asked for again, and the whole segment goes in one
 * range deletion ({@link #dropSegmentsBefore}). This is the design of Kafka's RocksDB versioned store; its
 * segments pack all versions of a key in one value, rewritten on every change, where here each version is
 * an entry of its own.
 *
 * <p>Invariants, which the searches below rely on:
 * <ul>
 *   <li>The {@code validTo} of an older version that is a value is exact: the next point's timestamp. A
 *   newest point that is a tombstone is filed with {@code validTo == validFrom}, and a tombstone's
 *   {@code validTo} is not moved when a newer point arrives, so it may be short — never long. A tombstone
 *   reads as nothing whatever its {@code validTo}, so only puts care, and they take the next point from the
 *   following entry instead.</li>
 *   <li>Hence a key's points sorted by {@code validFrom} are sorted by segment too, and every point later
 *   than a time {@code t} lies in a segment at or after {@code segment(t)} — or is the latest value. Every
 *   search starts at {@code segment(t)} and walks forward, one seek per live segment.</li>
 * </ul>
 *
 * <p>Threads: one writer (the task's thread); readers may be query threads, which see the live segments
 * through a concurrent set and read the engine at the snapshot of their iterator. A point's timestamp only
 * grows at the newest end, so a reader that found the latest value too new and then searches older versions
 * at a later snapshot still finds the version that held at its time.
 */
final class VersionHistory {

    /** What {@link #put} returns for a point that became the newest. */
    static final long NO_NEXT_POINT = Long.MIN_VALUE;

    private final long segmentInterval;
    private final NavigableSet<Long> liveSegments = new ConcurrentSkipListSet<>();

    VersionHistory(long segmentInterval) {
        if (segmentInterval < 1) {
            throw new IllegalArgumentException("segmentInterval must be positive: " + segmentInterval);
        }
        this.segmentInterval = segmentInterval;
    }

    long segmentId(long timestamp) {
        return Math.floorDiv(timestamp, segmentInterval);
    }

    /** Finds the segments present in {@code db} by hopping from one segment's start to the next. */
    void load(Db db) {
        liveSegments.clear();
        try (DbIterator it = historyIterator(db)) {
            it.seekToFirst();
            while (it.valid()) {
                long id = VersionedLayout.segmentOf(it.key());
                liveSegments.add(id);
                if (id == Long.MAX_VALUE) {
                    break;
                }
                it.seek(VersionedLayout.segmentStart(id + 1));
            }
        }
    }

    /** Adds to {@code batch} the deletion of every segment before {@code minLiveSegment}. */
    void dropSegmentsBefore(long minLiveSegment, WriteBatch batch) {
        if (liveSegments.isEmpty() || liveSegments.first() >= minLiveSegment) {
            return;
        }
        batch.deleteRange(HISTORY_START, VersionedLayout.segmentStart(minLiveSegment));
        liveSegments.headSet(minLiveSegment).clear();
    }

    /** The latest value of {@code key}, or null when its newest point is a tombstone or it has none. */
    VersionedRecord<byte[]> latest(Db db, byte[] key) {
        byte[] stored = db.get(VersionedLayout.latestKey(key));
        return stored == null ? null
                : new VersionedRecord<>(VersionedLayout.latestPayload(stored), VersionedLayout.latestValidFrom(stored));
    }

    /** The value of {@code key} that held at {@code asOf}, or null if none did (or a tombstone did). */
    VersionedRecord<byte[]> asOf(Db db, byte[] key, long asOf) {
        VersionedRecord<byte[]> latest = latest(db, key);
        if (latest != null && latest.timestamp() <= asOf) {
            return latest;
        }
        try (DbIterator it = historyIterator(db)) {
            for (long segment : liveSegments.tailSet(segmentId(asOf), true)) {
                byte[] prefix = VersionedLayout.versionsPrefix(segment, key);
                it.seekForPrev(VersionedLayout.versionKey(prefix, asOf));
                if (startsWith(it, prefix)) {
                    byte[] stored = it.value();
                    long validTo = VersionedLayout.validToOf(stored);
                    if (validTo > asOf) {
                        byte[] value = VersionedLayout.payloadOf(stored);
                        return value == null ? null
                                : new VersionedRecord<>(value, VersionedLayout.validFromOf(it.key()), validTo);
                    }
                    // That version ended by asOf: the one holding asOf, if any, is filed in a later segment.
                } else {
                    it.seek(prefix);
                    if (startsWith(it, prefix)) {
                        // The key's versions here all start after asOf, and no earlier one reached asOf.
                        return null;
                    }
                }
            }
        }
        return null;
    }

    /**
     * The values of {@code key} that held at some time in {@code [from, to]}, newest first or oldest first.
     * The latest value counts as holding until forever.
     */
    List<VersionedRecord<byte[]>> versions(Db db, byte[] key, long from, long to, boolean ascending) {
        List<VersionedRecord<byte[]>> found = new ArrayList<>();
        if (from <= to) {
            try (DbIterator it = historyIterator(db)) {
                segments:
                for (long segment : liveSegments.tailSet(segmentId(from), true)) {
                    byte[] prefix = VersionedLayout.versionsPrefix(segment, key);
                    for (it.seek(prefix); startsWith(it, prefix); it.next()) {
                        long validFrom = VersionedLayout.validFromOf(it.key());
                        if (validFrom > to) {
                            break segments;
                        }
                        byte[] stored = it.value();
                        long validTo = VersionedLayout.validToOf(stored);
                        byte[] value = VersionedLayout.payloadOf(stored);
                        if (value != null && validTo > from) {
                            found.add(new VersionedRecord<>(value, validFrom, validTo));
                        }
                    }
                }
            }
            VersionedRecord<byte[]> latest = latest(db, key);
            if (latest != null && latest.timestamp() <= to) {
                found.add(latest);
            }
        }
        if (!ascending) {
            found = found.reversed();
        }
        return found;
    }

    /**
     * Records in {@code edits} what makes {@code value} (null: a tombstone) the point of {@code key} at
     * {@code timestamp}, replacing a point already there, and returns the next point's timestamp, or
     * {@link #NO_NEXT_POINT} if this point is the newest.
     */
    long put(VersionEdits edits, byte[] key, byte[] value, long timestamp) {
        byte[] latestKey = VersionedLayout.latestKey(key);
        byte[] latestStored = edits.get(latestKey);
        if (latestStored != null && VersionedLayout.latestValidFrom(latestStored) <= timestamp) {
            long latestFrom = VersionedLayout.latestValidFrom(latestStored);
            if (latestFrom < timestamp) {
                file(edits, key, latestFrom, timestamp, VersionedLayout.latestPayload(latestStored));
            }
            putNewest(edits, key, latestKey, value, timestamp);
            return NO_NEXT_POINT;
        }

        byte[] floorKey = null;
        byte[] floorStored = null;
        long next = latestStored == null ? NO_NEXT_POINT : VersionedLayout.latestValidFrom(latestStored);
        try (DbIterator it = edits.history()) {
            for (long segment : liveSegments.tailSet(segmentId(timestamp), true)) {
                byte[] prefix = VersionedLayout.versionsPrefix(segment, key);
                it.seekForPrev(VersionedLayout.versionKey(prefix, timestamp));
                if (startsWith(it, prefix)) {
                    floorKey = it.key();
                    floorStored = it.value();
                    it.next();
                } else {
                    it.seek(prefix);
                }
                if (startsWith(it, prefix)) {
                    next = VersionedLayout.validFromOf(it.key());
                    break;
                }
            }
        }

        if (floorKey != null) {
            long floorFrom = VersionedLayout.validFromOf(floorKey);
            long floorTo = VersionedLayout.validToOf(floorStored);
            if (floorFrom == timestamp) {
                edits.delete(floorKey);
            } else if (floorTo > timestamp) {
                // The point before now ends here.
                edits.delete(floorKey);
                file(edits, key, floorFrom, timestamp, VersionedLayout.payloadOf(floorStored));
            }
        }
        if (next == NO_NEXT_POINT) {
            putNewest(edits, key, latestKey, value, timestamp);
        } else {
            file(edits, key, timestamp, next, value);
        }
        return next;
    }

    private void putNewest(VersionEdits edits, byte[] key, byte[] latestKey, byte[] value, long timestamp) {
        if (value != null) {
            edits.put(latestKey, VersionedLayout.latestValue(timestamp, value));
        } else {
            edits.delete(latestKey);
            file(edits, key, timestamp, timestamp, null);
        }
    }

    /** Files an older version in the segment of its {@code validTo}. */
    private void file(VersionEdits edits, byte[] key, long validFrom, long validTo, byte[] value) {
        long segment = segmentId(validTo);
        edits.put(VersionedLayout.versionKey(VersionedLayout.versionsPrefix(segment, key), validFrom),
                VersionedLayout.versionValue(validTo, value));
        liveSegments.add(segment);
    }

    private static DbIterator historyIterator(Db db) {
        return db.iterator(ReadOptions.DEFAULT.withLowerBound(HISTORY_START).withUpperBound(HISTORY_END));
    }

    private static boolean startsWith(DbIterator it, byte[] prefix) {
        if (!it.valid()) {
            return false;
        }
        byte[] key = it.key();
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}

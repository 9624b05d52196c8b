package io.varve.core.internal;

import io.varve.core.Options;
import io.varve.core.WalRecoveryMode;
import io.varve.core.WriteBatch;
import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchReader;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.wal.PredecessorRecord;
import io.varve.core.internal.wal.TruncatedRecordException;
import io.varve.core.internal.wal.WalReader;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.OptionalLong;
import io.varve.core.internal.batch.WriteBatchFormat;
import java.util.HashMap;

/**
 * Rebuilds the memtables from the write-ahead logs at open, applying {@link WalRecoveryMode}.
 *
 * <p>When the mode accepts damage, the damaged log is cut back to its valid prefix (copied to a temporary
 * file and renamed over it) and, in point-in-time mode, every later log is deleted — before any new write is
 * logged. So the directory afterwards holds exactly the recovered state: the next open sees no damage, and no
 * new write ever lands after a hole.
 *
 * <p>A log started by a rotation begins with a {@link PredecessorRecord}: the old log's final fsync runs after
 * the rotation, so a machine crash can cut the old log short while part of the new one reached the disk. The
 * pipeline never counts anything in a log as synced before every older log is completely synced, so such a
 * cut means the logs after it hold no synced write: recovery stops at the cut (all modes but
 * {@code ABSOLUTE_CONSISTENCY}, which refuses to open) and deletes the later logs, keeping a prefix. For the
 * same reason a torn record at the end of a log that only such logs follow is a crash tail, not damage.
 */
public final class WalReplay {

    private final System.Logger log;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /**
     * The largest key plus value replay accepts: an entry over it could never be written to a table, so its
     * flush would fail on every open. The table limit unless a test binds a smaller one, which lets tests
     * build such logs from ordinary writes instead of allocating hundreds of megabytes.
     */
    static final ScopedValue<Long> ENTRY_LIMIT = ScopedValue.newInstance();

    /**
     * The outcome: each column family's memtables, oldest first (all to be flushed), the newest sequence, the
     * logs kept, and the log records found holding an entry too large for a table.
     */
    record Result(Map<Integer, List<Memtable>> memtables, long lastSequence, long maxLogNumber,
                  int oversizedRecords) {

        void releaseAll() {
            memtables.values().forEach(list -> list.forEach(Memtable::release));
        }
    }

    /** What replay must know of one recovered column family. */
    record Family(long logNumber, long writeBufferSize) {
    }

    /** A logged batch holding an entry no table can hold: valid bytes, but it can never be recovered. */
    private static final class OversizedEntryException extends CorruptionException {
        OversizedEntryException(Path path, long offset, long bytes, long limit) {
            super(path, offset, "log record holds an entry of " + bytes + " bytes (key plus value), over the "
                    + limit + " a table can hold; " + WalRecoveryMode.POINT_IN_TIME
                    + " recovery keeps the writes before it");
        }
    }

    /** How replaying one log ended. */
    private enum Outcome {
        /** Read to its clean end: go on with the next log. */
        COMPLETE,
        /** Damaged and cut back to its valid prefix: later logs are dropped. */
        CUT_SHORT,
        /** Its predecessor lost bytes it had when this log began: this log and later ones are dropped. */
        AFTER_HOLE
    }

    /** One family's memtables being filled. */
    private static final class Filling {
        final Family family;
        final List<Memtable> memtables = new ArrayList<>();
        long capacity;

        Filling(Family family) {
            this.family = family;
        }

        Memtable current() {
            return memtables.getLast();
        }
    }

    private final FileSystem fs;
    private final Path dir;
    private final WalRecoveryMode mode;
    private final Map<Integer, Filling> families = new TreeMap<>();
    /** The newest sequence in tables (from the manifest), then the newest replayed. */
    private long lastSequence;
    /** The newest sequence replayed so far; 0 before the first batch. */
    private long replayedSequence;
    private final long manifestSequence;
    private long logNumber;
    /** The valid length of each log replayed so far, for checking its successor's predecessor record. */
    private final Map<Long, Long> replayedLengths = new HashMap<>();

    /** False for a read-only open: damage ends the replay but nothing in the directory is changed. */
    private final boolean repairs;
    private final long minLogNumber;
    /** Logs from this number on follow every flush the manifest records. */
    private final long maxFamilyLogNumber;
    private final long entryLimit = ENTRY_LIMIT.orElse(WriteBatch.MAX_ENTRY_BYTES);
    private int oversizedRecords;

    /**
     * @param families     the column families the manifest lists, by id: a family's records in logs below its
     *                     log number are already in its tables, and records of families not listed (dropped)
     *                     are skipped
     * @param lastSequence the newest sequence already in tables; logged batches must follow it
     */
    WalReplay(FileSystem fs, Path dir, Options options, Map<Integer, Family> families, long lastSequence) {
        this(fs, dir, options, families, lastSequence, true);
    }

    /**
     * A replay that only reads: where the recovery mode accepts damage it stops at the valid prefix as a
     * writer's recovery would, but cuts nothing back and deletes no log, so the directory is left as found
     * (a writer may be appending to the newest log; its torn last record is then just a write in flight).
     */
    static WalReplay readOnly(FileSystem fs, Path dir, Options options, Map<Integer, Family> families,
                              long lastSequence) {
        return new WalReplay(fs, dir, options, families, lastSequence, false);
    }

    private WalReplay(FileSystem fs, Path dir, Options options, Map<Integer, Family> families, long lastSequence,
                      boolean repairs) {
        this.repairs = repairs;
        this.log = options.logger();
        this.fs = fs;
        this.dir = dir;
        this.mode = options.walRecovery();
        this.minLogNumber = families.values().stream().mapToLong(Family::logNumber).min().orElse(0);
        this.lastSequence = lastSequence;
        this.manifestSequence = lastSequence;
        this.maxFamilyLogNumber = families.values().stream().mapToLong(Family::logNumber).max().orElse(0);
        families.forEach((id, family) -> this.families.put(id, new Filling(family)));
    }

    Result run() throws IOException {
        List<Long> logs = new ArrayList<>();
        for (String name : fs.list(dir)) {
            OptionalLong number = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
            if (number.isPresent() && number.getAsLong() >= minLogNumber) {
                logs.add(number.getAsLong());
            }
        }
        logs.sort(null);
        long maxLog = logs.isEmpty() ? 0 : logs.getLast();
        try {
            for (int i = 0; i < logs.size(); i++) {
                Outcome outcome = replay(logs, i);
                if (outcome != Outcome.COMPLETE && !repairs) {
                    break;
                }
                if (outcome != Outcome.COMPLETE) {
                    int firstDropped = outcome == Outcome.AFTER_HOLE ? i : i + 1;
                    for (long dropped : logs.subList(firstDropped, logs.size())) {
                        log.log(System.Logger.Level.WARNING, "recovery ({0}) drops log {1}", mode, dropped);
                        fs.delete(DbFiles.log(dir, dropped));
                    }
                    fs.syncDirectory(dir);
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            families.values().forEach(f -> f.memtables.forEach(Memtable::release));
            throw e;
        }
        Map<Integer, List<Memtable>> memtables = new TreeMap<>();
        families.forEach((id, f) -> memtables.put(id, List.copyOf(f.memtables)));
        return new Result(memtables, lastSequence, maxLog, oversizedRecords);
    }

    /** Replays log {@code logs[index]}. */
    private Outcome replay(List<Long> logs, int index) throws IOException {
        long number = logs.get(index);
        boolean lastLog = index == logs.size() - 1;
        Path path = DbFiles.log(dir, number);
        logNumber = number;
        long validLength;
        IOException damage;
        try (ReadableFile file = fs.openReadable(path)) {
            WalReader reader = new WalReader(file, path, number);
            try {
                byte[] payload;
                long start = 0;
                while ((payload = reader.next()) != null) {
                    PredecessorRecord.Link link = PredecessorRecord.decode(payload);
                    if (link == null) {
                        applyBatch(path, start, reader.offset(), payload);
                    } else if (start != 0) {
                        throw new CorruptionException(path, start, "predecessor record after the start of the log");
                    } else if (predecessorCutShort(path, link)) {
                        return Outcome.AFTER_HOLE;
                    }
                    start = reader.offset();
                }
                // An empty log stays until the new manifest no longer names it: deleting it here, before that
                // manifest exists, would leave the old one naming a missing log if the open is cut short.
                replayedLengths.put(number, reader.offset());
                return Outcome.COMPLETE;
            } catch (TruncatedRecordException e) {
                if (mode == WalRecoveryMode.ABSOLUTE_CONSISTENCY
                        || (mode == WalRecoveryMode.TOLERATE_CORRUPTED_TAIL && !lastLog
                                && !onlyRotatedLogsAfter(logs, index))) {
                    throw e;
                }
                damage = e;
            } catch (OversizedEntryException e) {
                // Valid bytes no table can hold: RocksDB's answer to a record it cannot apply. Refused where
                // the mode accepts no loss; point-in-time keeps the writes before it, as for damage, so the
                // recovered state stays a prefix. The record is cut off with the rest: the next open is clean.
                oversizedRecords++;
                if (mode != WalRecoveryMode.POINT_IN_TIME) {
                    throw e;
                }
                log.log(System.Logger.Level.WARNING, "recovery ({0}) stops before the record: {1}", mode,
                        e.getMessage());
                if (repairs) {
                    cutBack(path, e.offset());
                }
                return Outcome.CUT_SHORT;
            } catch (CorruptionException e) {
                if (mode != WalRecoveryMode.POINT_IN_TIME) {
                    throw e;
                }
                damage = e;
            }
            validLength = reader.offset();
        }
        // Read-only beside a live writer, a torn last record is routine: the writer's append in flight.
        log.log(repairs ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                "recovery ({0}) keeps {1} bytes of {2}: {3}", mode, validLength, path, damage.getMessage());
        if (repairs) {
            cutBack(path, validLength);
        }
        return Outcome.CUT_SHORT;
    }

    /**
     * Whether the log a predecessor record names was replayed here and is shorter than when this log began.
     * A predecessor not replayed here is already in tables (below every family's log number) or was deleted
     * as empty by an earlier recovery, which then left nothing after it unsynced.
     *
     * @throws CorruptionException in {@code ABSOLUTE_CONSISTENCY} mode, which never drops a log
     */
    private boolean predecessorCutShort(Path path, PredecessorRecord.Link link) throws CorruptionException {
        Long length = replayedLengths.get(link.logNumber());
        if (length == null || length >= link.length()) {
            return false;
        }
        String what = "log " + link.logNumber() + " holds " + length + " bytes but had " + link.length()
                + " when this log began: writes in between were lost";
        if (mode == WalRecoveryMode.ABSOLUTE_CONSISTENCY) {
            throw new CorruptionException(path, 0, what);
        }
        log.log(System.Logger.Level.WARNING, "recovery ({0}) stops before {1}: {2}", mode, path, what);
        return true;
    }

    /**
     * Whether every log after {@code logs[index]} is empty or starts with a predecessor record: then none of
     * them holds a synced write unless that log was synced completely first, so a torn end there is what a
     * crash leaves, not damage.
     */
    private boolean onlyRotatedLogsAfter(List<Long> logs, int index) throws IOException {
        for (long later : logs.subList(index + 1, logs.size())) {
            Path path = DbFiles.log(dir, later);
            if (fs.size(path) == 0) {
                continue;
            }
            try (ReadableFile file = fs.openReadable(path)) {
                byte[] first = new WalReader(file, path, later).next();
                if (first == null || PredecessorRecord.decode(first) == null) {
                    return false;
                }
            } catch (CorruptionException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param startOffset where the record starts in the log: where an oversized one is cut off
     * @param endOffset   where it ends
     */
    private void applyBatch(Path path, long startOffset, long endOffset, byte[] payload) throws CorruptionException {
        MemorySegment batch = MemorySegment.ofArray(payload);
        long count;
        long payloadBytes = payload.length - WriteBatchFormat.HEADER_SIZE;
        long first;
        List<Filling> touched = new ArrayList<>(1);
        try {
            // Validate the whole batch before applying any of it: a batch is recovered whole or not at all.
            WriteBatchReader check = new WriteBatchReader(batch);
            while (check.next()) {
                Filling family = families.get(check.columnFamily());
                if (family == null || logNumber < family.family.logNumber()) {
                    continue;
                }
                long entryBytes = check.key().byteSize() + (check.value() == null ? 0 : check.value().byteSize());
                if (entryBytes > entryLimit && check.kind() != ValueKind.RANGE_DELETE) {
                    throw new OversizedEntryException(path, startOffset, entryBytes, entryLimit);
                }
                if (!touched.contains(family)) {
                    touched.add(family);
                }
            }
            count = check.count();
            first = check.sequence();
        } catch (WriteBatchReader.MalformedBatchException e) {
            throw new CorruptionException(path, endOffset, "log record holds a malformed batch: " + e.getMessage());
        }
        if (count == 0) {
            return;
        }
        // Sequences only grow along the logs, and logs newer than every family's flush follow the manifest's
        // sequence. (Older logs may hold flushed sequences: a crash can keep some families' flush edits and
        // not others, each with its own log number.) Anything else is damage or a foreign log, not a torn write.
        long floor = logNumber >= maxFamilyLogNumber ? Math.max(replayedSequence, manifestSequence) : replayedSequence;
        if (first <= floor || first + count - 1 > InternalKey.MAX_SEQUENCE) {
            throw new CorruptionException(path, endOffset, "batch sequence " + first + " does not follow " + floor);
        }
        long reserve = MemtableSet.reserve(payloadBytes, count);
        for (Filling family : touched) {
            // The live pipeline's rule with nothing in flight (see CommitPipeline.fits): the memtable's bytes
            // in use plus the batch's bound; a batch larger than a memtable gets one of its own size.
            if (family.memtables.isEmpty()
                    || family.current().approximateMemoryUsage() + reserve > family.capacity) {
                family.capacity = MemtableSet.capacity(family.family.writeBufferSize(), reserve);
                family.memtables.add(new Memtable(family.capacity));
            }
        }
        long log = logNumber;
        CommitPipeline.apply(batch, id -> {
            Filling family = families.get(id);
            return family != null && log >= family.family.logNumber() ? family.current() : null;
        });
        replayedSequence = first + count - 1;
        lastSequence = Math.max(lastSequence, replayedSequence);
    }

    /** Replaces {@code path} with its first {@code length} bytes, atomically. */
    private void cutBack(Path path, long length) throws IOException {
        Path temp = path.resolveSibling(path.getFileName() + ".tmp");
        try (ReadableFile in = fs.openReadable(path); WritableFile out = fs.create(temp)) {
            ByteBuffer buffer = ByteBuffer.allocate(64 << 10);
            long position = 0;
            while (position < length) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), length - position));
                in.readFully(buffer, position);
                buffer.flip();
                position += buffer.remaining();
                out.write(buffer);
            }
            out.sync();
        }
        fs.rename(temp, path);
        fs.syncDirectory(dir);
    }
}

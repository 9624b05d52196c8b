package io.varve.core;

import io.varve.core.base.CorruptionException;
import io.varve.core.base.InternalKey;
import io.varve.core.batch.BatchReader;
import io.varve.core.fs.FileSystem;
import io.varve.core.fs.ReadableFile;
import io.varve.core.fs.WritableFile;
import io.varve.core.memtable.Memtable;
import io.varve.core.wal.TruncatedRecordException;
import io.varve.core.wal.WalReader;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.OptionalLong;

/**
 * Rebuilds the memtables from the write-ahead logs at open, applying {@link WalRecoveryMode}.
 *
 * <p>When the mode accepts damage, the damaged log is cut back to its valid prefix (copied to a temporary
 * file and renamed over it) and, in point-in-time mode, every later log is deleted — before any new write is
 * logged. So the directory afterwards holds exactly the recovered state: the next open sees no damage, and no
 * new write ever lands after a hole.
 */
final class WalReplay {

    private static final System.Logger LOG = System.getLogger(WalReplay.class.getName());
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** The outcome: each column family's memtables, oldest first (all to be flushed), the newest sequence, the logs kept. */
    record Result(Map<Integer, List<Memtable>> memtables, long lastSequence, long maxLogNumber) {

        void releaseAll() {
            memtables.values().forEach(list -> list.forEach(Memtable::release));
        }
    }

    /** What replay must know of one recovered column family. */
    record Family(long logNumber, long writeBufferSize) {
    }

    /** One family's memtables being filled. */
    private static final class Filling {
        final Family family;
        final List<Memtable> memtables = new ArrayList<>();
        long capacity;
        long reserved;

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

    private final long minLogNumber;
    /** Logs from this number on follow every flush the manifest records. */
    private final long maxFamilyLogNumber;

    /**
     * @param families     the column families the manifest lists, by id: a family's records in logs below its
     *                     log number are already in its tables, and records of families not listed (dropped)
     *                     are skipped
     * @param lastSequence the newest sequence already in tables; logged batches must follow it
     */
    WalReplay(FileSystem fs, Path dir, Options options, Map<Integer, Family> families, long lastSequence) {
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
                boolean last = i == logs.size() - 1;
                if (!replay(logs.get(i), last)) {
                    for (long dropped : logs.subList(i + 1, logs.size())) {
                        LOG.log(System.Logger.Level.WARNING, "point-in-time recovery drops log {0}", dropped);
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
        return new Result(memtables, lastSequence, maxLog);
    }

    /** Replays one log; false if it was cut short and later logs must be dropped. */
    private boolean replay(long number, boolean lastLog) throws IOException {
        Path path = DbFiles.log(dir, number);
        logNumber = number;
        long validLength;
        IOException damage;
        int records = 0;
        try (ReadableFile file = fs.openReadable(path)) {
            WalReader reader = new WalReader(file, path, number);
            try {
                byte[] payload;
                while ((payload = reader.next()) != null) {
                    applyBatch(path, reader.offset(), payload);
                    records++;
                }
                if (records == 0 && !lastLog) {
                    // An empty log left by an earlier open: nothing to keep.
                    fs.delete(path);
                }
                return true;
            } catch (TruncatedRecordException e) {
                if (mode == WalRecoveryMode.ABSOLUTE_CONSISTENCY || (mode == WalRecoveryMode.TOLERATE_CORRUPTED_TAIL && !lastLog)) {
                    throw e;
                }
                damage = e;
            } catch (CorruptionException e) {
                if (mode != WalRecoveryMode.POINT_IN_TIME) {
                    throw e;
                }
                damage = e;
            }
            validLength = reader.offset();
        }
        LOG.log(System.Logger.Level.WARNING, "recovery ({0}) keeps {1} bytes of {2}: {3}", mode, validLength, path,
                damage.getMessage());
        cutBack(path, validLength);
        return false;
    }

    private void applyBatch(Path path, long endOffset, byte[] payload) throws CorruptionException {
        MemorySegment batch = MemorySegment.ofArray(payload);
        long count;
        long payloadBytes = payload.length - io.varve.core.batch.BatchFormat.HEADER_SIZE;
        long first;
        List<Filling> touched = new ArrayList<>(1);
        try {
            // Validate the whole batch before applying any of it: a batch is recovered whole or not at all.
            BatchReader check = new BatchReader(batch);
            while (check.next()) {
                Filling family = families.get(check.columnFamily());
                if (family != null && logNumber >= family.family.logNumber() && !touched.contains(family)) {
                    touched.add(family);
                }
            }
            count = check.count();
            first = check.sequence();
        } catch (BatchReader.MalformedBatchException e) {
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
        long reserve = CommitPipeline.reserve(payloadBytes, count);
        for (Filling family : touched) {
            if (family.memtables.isEmpty() || family.reserved + reserve > family.capacity) {
                // Same rule as the live pipeline; a batch larger than a memtable gets one of its own size.
                family.capacity = CommitPipeline.memtableCapacity(family.family.writeBufferSize(), reserve);
                family.memtables.add(new Memtable(family.capacity));
                family.reserved = 0;
            }
            family.reserved += reserve;
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

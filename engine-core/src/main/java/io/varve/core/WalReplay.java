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

    /** The outcome: memtables (the last is still writable), the newest sequence, the logs kept. */
    record Result(List<Memtable> sealed, Memtable last, long lastReserved, long lastCapacity, long lastSequence,
                  long maxLogNumber) {
    }

    private final FileSystem fs;
    private final Path dir;
    private final WalRecoveryMode mode;
    private final long memtableCapacity;

    private final List<Memtable> sealed = new ArrayList<>();
    private Memtable current;
    private long currentCapacity;
    private long reserved;
    private long lastSequence;

    private final long minLogNumber;

    /**
     * @param minLogNumber logs numbered below this are already in tables (the manifest's log number)
     * @param lastSequence the newest sequence already in tables; logged batches must follow it
     */
    WalReplay(FileSystem fs, Path dir, Options options, long minLogNumber, long lastSequence) {
        this.fs = fs;
        this.dir = dir;
        this.mode = options.walRecovery();
        this.minLogNumber = minLogNumber;
        this.lastSequence = lastSequence;
        this.memtableCapacity = CommitPipeline.memtableCapacity(options.writeBufferSize(), 0);
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
        current = new Memtable(memtableCapacity);
        currentCapacity = memtableCapacity;
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
            current.release();
            sealed.forEach(Memtable::release);
            throw e;
        }
        return new Result(List.copyOf(sealed), current, reserved, currentCapacity, lastSequence, maxLog);
    }

    /** Replays one log; false if it was cut short and later logs must be dropped. */
    private boolean replay(long number, boolean lastLog) throws IOException {
        Path path = DbFiles.log(dir, number);
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
        try {
            // Validate the whole batch before applying any of it: a batch is recovered whole or not at all.
            BatchReader check = new BatchReader(batch);
            while (check.next()) {
                // walk only
            }
            count = check.count();
            first = check.sequence();
        } catch (BatchReader.MalformedBatchException e) {
            throw new CorruptionException(path, endOffset, "log record holds a malformed batch: " + e.getMessage());
        }
        if (count == 0) {
            return;
        }
        if (first <= lastSequence || first + count - 1 > InternalKey.MAX_SEQUENCE) {
            // Not a torn write: sequences only grow, so this record is damaged or from a foreign log.
            throw new CorruptionException(path, endOffset, "batch sequence " + first + " does not follow " + lastSequence);
        }
        long reserve = CommitPipeline.reserve(payloadBytes, count);
        if (reserved + reserve > currentCapacity) {
            // Same rule as the live pipeline; a batch larger than a memtable gets one of its own size.
            sealed.add(current);
            currentCapacity = Math.max(memtableCapacity, CommitPipeline.memtableCapacity(0, reserve));
            current = new Memtable(currentCapacity);
            reserved = 0;
        }
        CommitPipeline.apply(batch, current);
        reserved += reserve;
        lastSequence = first + count - 1;
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

package io.varve.raftlog.purge;

import io.varve.base.concurrent.GroupCommit;
import io.varve.base.fs.FileSystem;
import io.varve.raftlog.file.BlockReader;
import io.varve.raftlog.file.FileCatalog;
import io.varve.raftlog.file.FileId;
import io.varve.raftlog.file.FileReaders;
import io.varve.raftlog.file.IoCounters;
import io.varve.raftlog.file.LogFileName;
import io.varve.raftlog.file.LogQueue;
import io.varve.raftlog.file.QueueWriter;
import io.varve.raftlog.file.RecyclePool;
import io.varve.raftlog.format.BatchItem;
import io.varve.raftlog.index.ByteKey;
import io.varve.raftlog.index.EntryRing;
import io.varve.raftlog.index.Location;
import io.varve.raftlog.index.MemIndex;
import io.varve.raftlog.write.BatchCommitter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;

/**
 * Reclaims space: deletes old append files after copying what is still live in them to the rewrite queue,
 * and compacts the rewrite queue itself when it is mostly dead.
 *
 * <p>How a purge stays correct across crashes. Recovery replays the rewrite queue, then the append queue. A
 * purge that will delete append files below sequence S does, in order:
 * <ol>
 *   <li>Takes a cut T of the index as an exclusive request of the group commit (no write in flight), after
 *       syncing the append queue so that every batch before T is durable.</li>
 *   <li>Writes to the rewrite queue: (a) every live entry that lives in a file below S, per group the whole
 *       index range from the first such entry to the last entry not in a surviving append file, so that
 *       replaying it (which truncates after it, Raft-style) cannot cut off anything rewritten earlier; then
 *       (b) a snapshot of every group at T: Retain(first, count), ClearState and its puts, plus Clean for
 *       groups that have data in the rewrite queue but no longer exist; and last a Commit item, which records
 *       where the append queue was synced at T and which files of each queue this purge leaves in place
 *       (recovery checks both, so that it never cuts as a torn write what the commit depended on). Then syncs.
 *       Recovery ignores rewrite-queue batches after the last Commit, so a purge interrupted while copying is
 *       as if it never ran. This matters: copies are written in chunks, and a chunk alone (which truncates
 *       the group's log after itself) would cut off live entries that later chunks were meant to restore.</li>
 *   <li>Points the index at the copies (only where it still points at the originals), then deletes the
 *       append files below min(S, oldest file still referenced).</li>
 * </ol>
 * After the snapshot, replaying the surviving append files (all from before or after T) gives every index
 * and key its true value: whatever was last set by a replayed batch is set again by it; whatever was last
 * set in a deleted file is in the snapshot or among the copies. Replay may see a transient gap (a batch
 * from before T appending after an entry the snapshot already cut), which recovery fills with placeholders
 * that later batches overwrite. A crash at any point leaves either the old files (the copies and snapshot
 * are then redundant) or the new ones in place. Compacting the rewrite queue is the same procedure with
 * "lives in the rewrite queue" instead of "lives below S", after rolling the rewrite queue to a new file;
 * all older rewrite files are then deleted.
 *
 * <p>Only one purge runs at a time ({@code lock}); it owns the rewrite-queue writer. Any I/O error stops
 * the engine (fail-stop), as the rewrite queue may hold a partial batch.
 */
public final class Purger {
    private static final System.Logger LOG = System.getLogger(Purger.class.getName());

    private final FileSystem fs;
    private final Path dir;
    private final MemIndex index;
    private final FileCatalog catalog;
    private final FileReaders readers;
    private final BlockReader blocks;
    private final GroupCommit groupCommit;
    private final BatchCommitter committer;
    private final QueueWriter appendWriter;
    private final QueueWriter rewriteWriter;
    /** Where purged append files go to be written over later (or be deleted, when it is full). */
    private final RecyclePool pool;
    private final IoCounters counters;
    private final PurgeSettings settings;

    private final ReentrantLock lock = new ReentrantLock();
    /** Groups that may have entries or state in the rewrite queue. Guarded by {@code lock}. */
    private final Set<Long> rewriteGroups;
    /** Size of the last snapshot written, the part of the rewrite queue that is live without entries. */
    private long lastSnapshotBytes;

    public Purger(FileSystem fs, Path dir, MemIndex index, FileCatalog catalog, FileReaders readers,
            BlockReader blocks, GroupCommit groupCommit, BatchCommitter committer, QueueWriter appendWriter,
            QueueWriter rewriteWriter, RecyclePool pool, IoCounters counters, PurgeSettings settings,
            Set<Long> rewriteGroups) {
        this.fs = fs;
        this.pool = pool;
        this.dir = dir;
        this.index = index;
        this.catalog = catalog;
        this.readers = readers;
        this.blocks = blocks;
        this.groupCommit = groupCommit;
        this.committer = committer;
        this.appendWriter = appendWriter;
        this.rewriteWriter = rewriteWriter;
        this.counters = counters;
        this.settings = settings;
        this.rewriteGroups = new HashSet<>(rewriteGroups);
    }

    /** Runs a purge; returns the groups whose old entries keep append files alive (to be compacted). */
    public List<Long> purge() throws IOException {
        lock.lock();
        try {
            List<Long> heavy = purgeAppendQueue();
            compactRewriteQueueIfWasteful();
            heavy.sort(null);
            return heavy;
        } catch (IOException | RuntimeException e) {
            committer.fail(e);
            throw e;
        } finally {
            lock.unlock();
        }
    }

    /** Closes the rewrite writer; waits for a running purge. */
    public void close() throws IOException {
        lock.lock();
        try {
            rewriteWriter.close();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- append queue

    private List<Long> purgeAppendQueue() throws IOException {
        RewritePlan plan = exclusively(() -> {
            long activeSeq = FileId.sequence(appendWriter.activeFileId());
            List<FileCatalog.FileInfo> files = catalog.files(LogQueue.APPEND);
            if (files.isEmpty()) {
                return null;
            }
            long oldest = files.getFirst().sequence();
            long total = 0;
            for (FileCatalog.FileInfo f : files) {
                total += f.bytes();
            }
            long cut;
            if (total > settings.purgeThreshold()) {
                // Keep the newest files holding up to half the threshold; everything older is rewritten.
                long kept = 0;
                cut = activeSeq;
                for (int i = files.size() - 1; i >= 0; i--) {
                    kept += files.get(i).bytes();
                    if (kept > settings.purgeThreshold() / 2) {
                        cut = Math.min(activeSeq, files.get(i).sequence() + 1);
                        break;
                    }
                }
            } else {
                cut = Math.min(activeSeq, minLiveAppendSeq());
            }
            if (cut <= oldest) {
                return null;
            }
            long cutSeq = cut;
            RewritePlan p = capture(cutSeq, id -> FileId.queue(id) == LogQueue.APPEND && FileId.sequence(id) < cutSeq,
                    true);
            // The commit names exactly the files this purge may delete: the ones below the cut that no reported
            // group pins. A later purge deleting more needs a later commit, which recovery can then demand.
            p.commit = commitPoint(Math.min(cutSeq, p.oldestPinned), oldestRewriteFile());
            return p;
        });
        if (plan == null) {
            return new ArrayList<>();
        }
        write(plan);
        counters.purgeRewrites.increment();
        long deleteBelow = Math.min(plan.commit.appendFloor(), minLiveAppendSeq());
        List<Long> doomed = new ArrayList<>();
        for (FileCatalog.FileInfo f : catalog.files(LogQueue.APPEND)) {
            if (f.sequence() < deleteBelow) {
                doomed.add(f.fileId());
            }
        }
        delete(doomed);
        return plan.heavyGroups;
    }

    // ---------------------------------------------------------------- rewrite queue

    private void compactRewriteQueueIfWasteful() throws IOException {
        List<FileCatalog.FileInfo> files = catalog.files(LogQueue.REWRITE);
        long total = 0;
        for (FileCatalog.FileInfo f : files) {
            total += f.bytes();
        }
        if (files.isEmpty() || total < settings.rewriteCompactMinBytes()) {
            return;
        }
        Map<Long, long[]> live = new HashMap<>();
        index.forEachGroup((group, entries, state) -> {
            for (long i = entries.first(), n = 0; n < entries.size(); i++, n++) {
                long id = Location.fileId(entries.location(i));
                if (FileId.queue(id) == LogQueue.REWRITE) {
                    live.computeIfAbsent(id, k -> new long[1])[0]++;
                }
            }
        });
        double liveBytes = lastSnapshotBytes;
        for (FileCatalog.FileInfo f : files) {
            long[] n = live.get(f.fileId());
            if (n != null && f.entriesWritten() > 0) {
                liveBytes += (double) f.bytes() * n[0] / f.entriesWritten();
            }
        }
        double garbage = 1 - liveBytes / total;
        if (settings.rewriteGarbageRatio() > 0 && garbage < settings.rewriteGarbageRatio()) {
            return; // (a ratio of 0 compacts at every purge)
        }
        rewriteWriter.startNewFile();
        long firstNewSeq = FileId.sequence(rewriteWriter.activeFileId());
        RewritePlan plan = exclusively(() -> {
            RewritePlan p = capture(Long.MIN_VALUE, id -> FileId.queue(id) == LogQueue.REWRITE, false);
            p.commit = commitPoint(oldestAppendFile(), firstNewSeq);
            return p;
        });
        write(plan);
        Set<Long> stillThere = new HashSet<>();
        for (RewritePlan.GroupSnapshot g : plan.snapshot) {
            stillThere.add(g.group());
        }
        List<Long> doomed = new ArrayList<>();
        for (FileCatalog.FileInfo f : catalog.files(LogQueue.REWRITE)) {
            if (f.sequence() < firstNewSeq) {
                doomed.add(f.fileId());
            }
        }
        delete(doomed);
        counters.rewriteQueueCompactions.increment();
        rewriteGroups.clear();
        rewriteGroups.addAll(stillThere);
        LOG.log(System.Logger.Level.DEBUG, () -> "compacted the rewrite queue: " + files.size() + " files, "
                + String.format("%.0f%%", garbage * 100) + " garbage");
    }

    // ---------------------------------------------------------------- shared steps

    private interface PlanMaker {
        RewritePlan make() throws IOException;
    }

    /** Runs {@code maker} as an exclusive request after syncing the append queue. */
    private RewritePlan exclusively(PlanMaker maker) throws IOException {
        RewritePlan[] out = new RewritePlan[1];
        BatchCommitter.ExclusiveRequest request = new BatchCommitter.ExclusiveRequest(() -> {
            appendWriter.sync();
            out[0] = maker.make();
            return 0;
        }, true, false);
        groupCommit.enter(request);
        Throwable failure = request.failure();
        if (failure != null) {
            if (failure instanceof IOException io) {
                throw io;
            }
            if (failure instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(failure);
        }
        return out[0];
    }

    /**
     * Writes a commit that copies and snapshots nothing, only records where the queues stand now. Recovery
     * calls for it after {@code TOLERATE_ANY_CORRUPTION} repaired damage below the last commit's positions
     * (or lost files it said must survive): without it the next open would find the repair and refuse.
     */
    public void checkpoint() throws IOException {
        lock.lock();
        try {
            RewritePlan plan = exclusively(() -> {
                RewritePlan p = new RewritePlan(Long.MIN_VALUE);
                p.commit = commitPoint(oldestAppendFile(), oldestRewriteFile());
                return p;
            });
            // Not write(plan): the last snapshot stays what the garbage estimate counts as live.
            new RewriteBatches(rewriteWriter, settings.rewriteBatchBytes(), settings.compressionThreshold())
                    .commit(plan.commit);
        } catch (IOException | RuntimeException e) {
            committer.fail(e);
            throw e;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Called with no write in flight, the append queue just synced: a commit recording that every append
     * batch before the active file's end is durable, and that this purge deletes no append file from
     * {@code appendFloor} on and no rewrite file from {@code rewriteFloor} on.
     */
    private BatchItem.Commit commitPoint(long appendFloor, long rewriteFloor) {
        return new BatchItem.Commit(FileId.sequence(appendWriter.activeFileId()), appendWriter.activeEnd(),
                appendFloor, rewriteFloor);
    }

    private long oldestAppendFile() {
        List<FileCatalog.FileInfo> files = catalog.files(LogQueue.APPEND);
        return files.isEmpty() ? FileId.sequence(appendWriter.activeFileId()) : files.getFirst().sequence();
    }

    /** The oldest rewrite file, or the one the next rewrite batch will create if there is none. */
    private long oldestRewriteFile() {
        List<FileCatalog.FileInfo> files = catalog.files(LogQueue.REWRITE);
        return files.isEmpty() ? rewriteWriter.nextSequence() : files.getFirst().sequence();
    }

    /** Called with no write in flight: what to copy, and every group's state. */
    private RewritePlan capture(long appendCut, LongPredicate move, boolean reportHeavy) {
        RewritePlan plan = new RewritePlan(appendCut);
        Set<Long> live = new HashSet<>();
        index.forEachGroup((group, entries, state) -> {
            live.add(group);
            planCopy(plan, group, entries, move, reportHeavy);
            List<Map.Entry<byte[], byte[]>> kv = new ArrayList<>(state.size());
            for (Map.Entry<ByteKey, byte[]> e : state.entrySet()) {
                kv.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey().bytes(), e.getValue()));
            }
            plan.snapshot.add(new RewritePlan.GroupSnapshot(group, entries.isEmpty() ? 0 : entries.first(),
                    entries.size(), kv));
        });
        for (long g : rewriteGroups) {
            if (!live.contains(g)) {
                plan.deadGroups.add(g);
            }
        }
        return plan;
    }

    private void planCopy(RewritePlan plan, long group, EntryRing entries, LongPredicate move, boolean reportHeavy) {
        long firstToMove = -1;
        long lastToCopy = -1;
        long moving = 0;
        long oldestMoving = Long.MAX_VALUE;
        for (long i = entries.first(), n = 0; n < entries.size(); i++, n++) {
            long id = Location.fileId(entries.location(i));
            boolean moves = move.test(id);
            if (moves) {
                moving++;
                oldestMoving = Math.min(oldestMoving, FileId.sequence(id));
                if (firstToMove < 0) {
                    firstToMove = i;
                }
            }
            // Anything not in a surviving append file must be copied too once copying started, or replaying
            // the copy (which truncates after itself) would cut it off.
            if (firstToMove >= 0 && (moves || FileId.queue(id) == LogQueue.REWRITE)) {
                lastToCopy = i;
            }
        }
        if (firstToMove < 0) {
            return;
        }
        if (reportHeavy && moving > settings.rewriteMaxEntries()) {
            plan.heavyGroups.add(group);
            plan.oldestPinned = Math.min(plan.oldestPinned, oldestMoving);
            return;
        }
        int n = (int) (lastToCopy - firstToMove + 1);
        long[] locs = new long[n];
        int[] ordinals = new int[n];
        for (int k = 0; k < n; k++) {
            locs[k] = entries.location(firstToMove + k);
            ordinals[k] = entries.ordinal(firstToMove + k);
        }
        plan.copies.add(new RewritePlan.Copy(group, firstToMove, locs, ordinals));
    }

    /** Writes the plan's copies, then its snapshot and a commit, to the rewrite queue; relocates the index. */
    private void write(RewritePlan plan) throws IOException {
        RewriteBatches out = new RewriteBatches(rewriteWriter, settings.rewriteBatchBytes(),
                settings.compressionThreshold());
        long copied = 0;
        for (RewritePlan.Copy copy : plan.copies) {
            long[] locations = copy.locations();
            int[] ordinals = copy.ordinals();
            for (int i = 0; i < locations.length; ) {
                int from = i;
                long bytes = 0;
                List<byte[]> chunk = new ArrayList<>();
                while (i < locations.length && bytes < settings.rewriteBatchBytes()) {
                    byte[] e = blocks.entry(Location.fileId(locations[i]), Location.position(locations[i]),
                            ordinals[i]);
                    chunk.add(e);
                    bytes += e.length;
                    i++;
                }
                out.copy(copy.group(), copy.firstIndex() + from, chunk, Arrays.copyOfRange(locations, from, i),
                        Arrays.copyOfRange(ordinals, from, i));
                copied += chunk.size();
            }
        }
        long beforeSnapshot = out.bytesWritten();
        for (RewritePlan.GroupSnapshot g : plan.snapshot) {
            out.snapshot(g);
        }
        for (long g : plan.deadGroups) {
            out.clean(g);
        }
        out.commit(plan.commit);
        lastSnapshotBytes = out.bytesWritten() - beforeSnapshot;

        long relocated = 0;
        for (RewriteBatches.Relocation r : out.relocations()) {
            relocated += index.relocate(r.group(), r.firstIndex(), r.oldLocations(), r.oldOrdinals(), r.newLocation(),
                    r.newFirstOrdinal());
        }
        for (RewritePlan.Copy c : plan.copies) {
            rewriteGroups.add(c.group());
        }
        for (RewritePlan.GroupSnapshot g : plan.snapshot) {
            rewriteGroups.add(g.group());
        }
        long copiedEntries = copied;
        long stillLive = relocated;
        LOG.log(System.Logger.Level.DEBUG, () -> "purge copied " + copiedEntries + " entries (" + stillLive
                + " still live) and a snapshot of " + plan.snapshot.size() + " groups");
    }

    /**
     * Deletes (or retires to the recycle pool) files of one queue, oldest first, syncing the directory after
     * each. One unsynced name change at a time keeps the surviving files contiguous whatever a crash keeps:
     * a file system may persist unsynced directory changes in any order, and losing the deletion of file 1
     * while keeping that of file 2 would leave a hole recovery must refuse. A retired file enters the pool only
     * after its recycle name is durable, so the append writer never gives a new header to a file a crash
     * could bring back under its old name.
     */
    private void delete(List<Long> fileIds) throws IOException {
        List<Long> oldestFirst = new ArrayList<>(fileIds);
        oldestFirst.sort(null);
        for (long id : oldestFirst) {
            readers.retire(id);
            catalog.remove(id);
            Path recycled = null;
            if (FileId.queue(id) == LogQueue.APPEND) {
                recycled = pool.retire(id);
            } else {
                fs.delete(LogFileName.path(dir, id));
            }
            fs.syncDirectory(dir);
            counters.directorySyncs.increment();
            counters.filesDeleted.increment();
            if (recycled != null) {
                pool.admit(List.of(recycled));
            }
        }
    }

    /** The oldest append file any live entry is in, or Long.MAX_VALUE. */
    private long minLiveAppendSeq() {
        long[] min = {Long.MAX_VALUE};
        index.forEachGroup((group, entries, state) -> {
            for (long i = entries.first(), n = 0; n < entries.size(); i++, n++) {
                long id = Location.fileId(entries.location(i));
                if (FileId.queue(id) == LogQueue.APPEND) {
                    min[0] = Math.min(min[0], FileId.sequence(id));
                }
            }
        });
        return min[0];
    }
}

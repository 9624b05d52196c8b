package io.varve.raftlog.recovery;

import io.varve.base.CorruptionException;
import io.varve.raftlog.format.BatchItem;
import io.varve.raftlog.index.MemIndex;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replays the rewrite queue in whole purges: batches are held back until one ending with a Commit item
 * arrives, then applied together. What is still held back at the end belongs to a purge that did not finish
 * and is never applied. Single-threaded (recovery's applying thread).
 */
final class RewriteQueueReplay {

    /** What was kept of one rewrite file: its valid length (-1 for a bad header) and committed entries. */
    static final class FileState {
        final long validLength;
        long committedEntries;

        FileState(long validLength) {
            this.validLength = validLength;
        }
    }

    private final MemIndex index;
    private final Map<Long, FileState> files = new LinkedHashMap<>();
    /** Batches waiting for a Commit: (file, batch number) pairs. */
    private final List<ScannedBatches> heldFiles = new ArrayList<>();
    private final List<Long> heldIds = new ArrayList<>();
    private final List<Integer> heldBatches = new ArrayList<>();
    private final Set<Long> groups = new HashSet<>();
    private long lastCommitFile = -1;
    private long lastCommitEnd;
    private BatchItem.Commit lastCommit;

    RewriteQueueReplay(MemIndex index) {
        this.index = index;
    }

    void add(ScannedFile file) throws CorruptionException {
        long id = file.fileId();
        files.put(id, new FileState(file.headerValid() ? file.validLength() : -1));
        ScannedBatches batches = file.batches();
        for (int k = 0; k < batches.size(); k++) {
            heldFiles.add(batches);
            heldIds.add(id);
            heldBatches.add(k);
            if (batches.commits(k)) {
                applyHeld();
                lastCommitFile = id;
                lastCommitEnd = batches.end(k);
            }
        }
    }

    private void applyHeld() throws CorruptionException {
        for (int i = 0; i < heldFiles.size(); i++) {
            ScannedBatches batches = heldFiles.get(i);
            long id = heldIds.get(i);
            int k = heldBatches.get(i);
            List<BatchItem> items = batches.items(k);
            index.apply(items, id, batches.position(k), true);
            files.get(id).committedEntries += batches.entryCount(k);
            for (BatchItem item : items) {
                if (item instanceof BatchItem.Commit c) {
                    lastCommit = c;
                } else if (!(item instanceof BatchItem.Clean)) {
                    groups.add(item.group());
                }
            }
        }
        heldFiles.clear();
        heldIds.clear();
        heldBatches.clear();
    }

    /** Rewrite files in sequence order. */
    Map<Long, FileState> files() {
        return files;
    }

    /** Groups with data (entries, state) in the committed part of the rewrite queue. */
    Set<Long> groups() {
        return groups;
    }

    /** The file holding the last Commit, or -1 if there is none. */
    long lastCommitFile() {
        return lastCommitFile;
    }

    /** The last Commit applied, or null if there is none. */
    BatchItem.Commit lastCommit() {
        return lastCommit;
    }

    /** Where the batch holding the last Commit ends in {@link #lastCommitFile()}. */
    long lastCommitEnd() {
        return lastCommitEnd;
    }
}

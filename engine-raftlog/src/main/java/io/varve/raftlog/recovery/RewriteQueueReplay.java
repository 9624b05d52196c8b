package io.varve.raftlog.recovery;

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
    private final List<ScannedFile.Batch> held = new ArrayList<>();
    private final List<Long> heldFiles = new ArrayList<>();
    private final Set<Long> groups = new HashSet<>();
    private long lastCommitFile = -1;
    private long lastCommitEnd;

    RewriteQueueReplay(MemIndex index) {
        this.index = index;
    }

    void add(ScannedFile file) {
        long id = file.fileId();
        files.put(id, new FileState(file.headerValid() ? file.validLength() : -1));
        for (ScannedFile.Batch batch : file.batches()) {
            held.add(batch);
            heldFiles.add(id);
            if (batch.commits()) {
                applyHeld();
                lastCommitFile = id;
                lastCommitEnd = batch.end();
            }
        }
    }

    private void applyHeld() {
        for (int k = 0; k < held.size(); k++) {
            ScannedFile.Batch b = held.get(k);
            long id = heldFiles.get(k);
            index.apply(b.items(), id, b.position(), true);
            files.get(id).committedEntries += b.entryCount();
            for (BatchItem item : b.items()) {
                if (!(item instanceof BatchItem.Clean) && !(item instanceof BatchItem.Commit)) {
                    groups.add(item.group());
                }
            }
        }
        held.clear();
        heldFiles.clear();
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

    /** Where the batch holding the last Commit ends in {@link #lastCommitFile()}. */
    long lastCommitEnd() {
        return lastCommitEnd;
    }
}

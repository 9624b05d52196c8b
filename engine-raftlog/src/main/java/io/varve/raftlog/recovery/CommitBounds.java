package io.varve.raftlog.recovery;

import io.varve.base.CorruptionException;
import io.varve.raftlog.file.FileId;
import io.varve.raftlog.file.LogFileName;
import io.varve.raftlog.file.LogQueue;
import io.varve.raftlog.format.BatchItem;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Checks the files recovery found against what the last purge commit it replays records, so that no rule for
 * torn writes cuts away what that commit depended on.
 *
 * <p>A purge syncs the append queue, writes its copies and then a commit recording the append file and length
 * it had synced and the oldest append and rewrite files it leaves in place ({@link BatchItem.Commit}); it
 * deletes files only once the commit is durable. With C the last commit recovery replays:
 * <ul>
 *   <li>append file {@code C.appendSequence} must exist with valid batches up to {@code C.appendEnd}: those
 *       bytes were synced before C was written, and a crash tears only what was not yet synced;</li>
 *   <li>the oldest append file must be at most {@code C.appendFloor} and the oldest rewrite file at most
 *       {@code C.rewriteFloor}: files from there on are deleted only by a later purge after its commit is
 *       durable, so their absence proves a later commit that damage took away (the remaining rewrite queue
 *       lacks the copies of what was deleted);</li>
 *   <li>with no commit at all, no purge ever deleted an append file: the oldest must be the first, 1.</li>
 * </ul>
 * A commit read from a version-3 file records nothing, and is not checked. A violation is damage: refused
 * (file and offset) unless the mode is {@link RecoveryMode#TOLERATE_ANY_CORRUPTION}, which logs it and asks
 * the engine for a fresh commit, so that the next open finds the store consistent with its last commit.
 */
final class CommitBounds {
    private final Path dir;
    private final RecoveryMode mode;
    private final Consumer<String> problems;
    private boolean violated;

    CommitBounds(Path dir, RecoveryMode mode, Consumer<String> problems) {
        this.dir = dir;
        this.mode = mode;
        this.problems = problems;
    }

    /** Checks an append file's valid length; call once the whole rewrite queue has been replayed. */
    void checkAppendFile(ScannedFile file, BatchItem.Commit commit) throws CorruptionException {
        if (commit == null || !commit.recorded() || FileId.sequence(file.fileId()) != commit.appendSequence()) {
            return;
        }
        long valid = file.headerValid() ? file.validLength() : 0;
        if (valid < commit.appendEnd()) {
            violation(file.path(), valid, "valid batches end at " + valid + ", but the last purge commit records "
                    + "this file synced up to " + commit.appendEnd() + ": not a torn write");
        }
    }

    /**
     * Checks which files exist.
     *
     * @param rewrite every rewrite file found, in order
     * @param append every append file found, in order
     * @param cutRewrite the damaged newest rewrite file whose tail recovery cuts, or null
     */
    void checkFiles(List<Long> rewrite, List<Long> append, BatchItem.Commit commit, ScannedFile cutRewrite)
            throws CorruptionException {
        long oldestAppend = append.isEmpty() ? -1 : FileId.sequence(append.getFirst());
        if (commit == null) {
            if (oldestAppend > 1) {
                lostCommit(cutRewrite, append.getFirst(), "append files below " + oldestAppend
                        + " were deleted, which a purge does only after its commit, but no commit is left");
            }
            return;
        }
        if (!commit.recorded()) {
            return;
        }
        long newestAppend = append.isEmpty() ? -1 : FileId.sequence(append.getLast());
        if (newestAppend < commit.appendSequence()) {
            violation(LogFileName.path(dir, FileId.of(LogQueue.APPEND, commit.appendSequence())), 0,
                    "append file " + commit.appendSequence() + ", synced before the last purge commit, is missing");
        }
        if (oldestAppend > commit.appendFloor()) {
            lostCommit(cutRewrite, append.getFirst(), "append files from " + commit.appendFloor() + " to "
                    + (oldestAppend - 1) + " were deleted, which only a purge committed after the last commit left "
                    + "can have done");
        }
        long oldestRewrite = rewrite.isEmpty() ? -1 : FileId.sequence(rewrite.getFirst());
        if (oldestRewrite > commit.rewriteFloor()) {
            lostCommit(cutRewrite, rewrite.getFirst(), "rewrite files from " + commit.rewriteFloor() + " to "
                    + (oldestRewrite - 1) + " were deleted, which only a purge committed after the last commit left "
                    + "can have done");
        }
    }

    /** Whether a violation was tolerated: the engine must then write a commit recording the queues as they are. */
    boolean violated() {
        return violated;
    }

    /** Names the cut that lost the commit if there is one, else the first file that shows the loss. */
    private void lostCommit(ScannedFile cutRewrite, long shownBy, String what) throws CorruptionException {
        if (cutRewrite != null) {
            violation(cutRewrite.path(), cutRewrite.headerValid() ? cutRewrite.validLength() : 0,
                    "damage here hides a purge commit: " + what);
        } else {
            violation(LogFileName.path(dir, shownBy), 0, what);
        }
    }

    private void violation(Path file, long offset, String what) throws CorruptionException {
        if (mode != RecoveryMode.TOLERATE_ANY_CORRUPTION) {
            throw new CorruptionException(file, offset, what);
        }
        violated = true;
        problems.accept(file + " at " + offset + ": " + what + "; kept what remains");
    }
}

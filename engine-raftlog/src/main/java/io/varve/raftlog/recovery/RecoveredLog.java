package io.varve.raftlog.recovery;

import java.util.Set;

/**
 * What the engine needs after recovery to continue writing.
 *
 * @param resumeAppendSeq the last append file, to keep appending to, or 0 to start a new file
 * @param resumeAppendSize its valid length
 * @param resumeFirstBatch where that file's batches start (its header's size)
 * @param resumable whether appending may continue at that length (not after a recycled file's stale tail)
 * @param nextAppendSeq the sequence number of the next new append file
 * @param nextRewriteSeq the sequence number of the next new rewrite file
 * @param rewriteGroups groups that have data (entries, state) somewhere in the rewrite queue
 * @param problems descriptions of the damage tolerated, empty when the log was clean
 * @param holeRepairs groups whose log had a hole, with the index their entries now start at: the engine
 *     logs these compactions so the repair survives the next recovery
 * @param recycledFiles names of purged files kept to be written over, sorted
 * @param needsCommit whether the files contradict the last purge commit (tolerated damage): the engine
 *     writes a fresh commit so that the next open does not refuse what this one accepted
 */
public record RecoveredLog(long resumeAppendSeq, long resumeAppendSize, long resumeFirstBatch, boolean resumable, long nextAppendSeq,
        long nextRewriteSeq, Set<Long> rewriteGroups, java.util.List<String> problems,
        java.util.Map<Long, Long> holeRepairs, java.util.List<String> recycledFiles,
        boolean needsCommit) {
}

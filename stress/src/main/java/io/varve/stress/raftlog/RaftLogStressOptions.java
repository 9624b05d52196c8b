package io.varve.stress.raftlog;

import io.varve.raftlog.RaftLogOptions;

/**
 * The options of the raft-log campaigns, shared by the child workload and the parent that reopens its store:
 * small files and a low purge threshold so that rolling, purging, rewriting and recycling happen every few
 * hundred batches, and a compression threshold that some batches pass.
 */
final class RaftLogStressOptions {
    static final int GROUPS = 16;

    private RaftLogStressOptions() {
    }

    static RaftLogOptions options() {
        return RaftLogOptions.defaults().withTargetFileSize(64 << 10).withPurgeThreshold(256 << 10)
                .withPurgeRewriteMaxEntries(200).withRewriteGarbageRatio(0.3).withRecycledFiles(4)
                .withCompressionThreshold(2048);
    }
}

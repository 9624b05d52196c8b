package io.varve.replication;

import io.varve.core.Options;
import java.util.Objects;

/**
 * Options of one {@link ReplicatedDb} group member. Immutable; start from {@link #defaults()}.
 *
 * <ul>
 *   <li>{@code electionTimeoutMs} (1000): how long a follower waits without hearing from a leader before it
 *       stands for election. Failover takes about this long.</li>
 *   <li>{@code readMode} ({@link ReadMode#LINEARIZABLE}): how {@code get} confirms it sees every acknowledged
 *       write; see {@link ReadMode}.</li>
 *   <li>{@code snapshotIntervalSecs} (3600; 0 turns periodic snapshots off): how often jraft snapshots the
 *       state and drops the log before it. {@link ReplicatedDb#snapshot()} takes one at any time.</li>
 *   <li>{@code requestTimeoutMs} (10000): how long the blocking calls wait before they give up with a
 *       {@link ReplicationException}.</li>
 *   <li>{@code dbOptions} ({@link Options#defaults()}): the engine-core options of the group's database.</li>
 * </ul>
 */
public final class ReplicatedDbOptions {
    private final int electionTimeoutMs;
    private final ReadMode readMode;
    private final int snapshotIntervalSecs;
    private final long requestTimeoutMs;
    private final Options dbOptions;

    /** How {@link ReplicatedDb#get} makes sure it reads a state that includes every acknowledged write. */
    public enum ReadMode {
        /**
         * Raft's read index (jraft's {@code ReadOnlySafe}): the leader confirms with a majority heartbeat that it
         * is still leader, and the reading node waits until it has applied up to the leader's commit index. No
         * assumption about clocks; one network round trip per batch of reads.
         */
        LINEARIZABLE,
        /**
         * jraft's {@code ReadOnlyLeaseBased}: the leader skips the heartbeat while its lease holds (90% of the
         * election timeout since it last heard from a majority). Correct only if no node's clock runs so much
         * faster than the leader's that a new leader is elected while the old one believes its lease valid, and
         * the leader is not paused (a long GC) between checking its lease and answering. Faster; not safe
         * against arbitrary clock drift or pauses.
         */
        LEASE
    }

    private ReplicatedDbOptions(int electionTimeoutMs, ReadMode readMode, int snapshotIntervalSecs,
                                long requestTimeoutMs, Options dbOptions) {
        this.electionTimeoutMs = electionTimeoutMs;
        this.readMode = readMode;
        this.snapshotIntervalSecs = snapshotIntervalSecs;
        this.requestTimeoutMs = requestTimeoutMs;
        this.dbOptions = dbOptions;
    }

    public static ReplicatedDbOptions defaults() {
        return new ReplicatedDbOptions(1000, ReadMode.LINEARIZABLE, 3600, 10_000, Options.defaults());
    }

    public ReplicatedDbOptions withElectionTimeoutMs(int ms) {
        if (ms <= 0) {
            throw new IllegalArgumentException("election timeout must be positive: " + ms);
        }
        return new ReplicatedDbOptions(ms, readMode, snapshotIntervalSecs, requestTimeoutMs, dbOptions);
    }

    public ReplicatedDbOptions withReadMode(ReadMode mode) {
        return new ReplicatedDbOptions(electionTimeoutMs, Objects.requireNonNull(mode, "mode"),
                snapshotIntervalSecs, requestTimeoutMs, dbOptions);
    }

    public ReplicatedDbOptions withSnapshotIntervalSecs(int secs) {
        if (secs < 0) {
            throw new IllegalArgumentException("snapshot interval must not be negative: " + secs);
        }
        return new ReplicatedDbOptions(electionTimeoutMs, readMode, secs, requestTimeoutMs, dbOptions);
    }

    public ReplicatedDbOptions withRequestTimeoutMs(long ms) {
        if (ms <= 0) {
            throw new IllegalArgumentException("request timeout must be positive: " + ms);
        }
        return new ReplicatedDbOptions(electionTimeoutMs, readMode, snapshotIntervalSecs, ms, dbOptions);
    }

    public ReplicatedDbOptions withDbOptions(Options options) {
        return new ReplicatedDbOptions(electionTimeoutMs, readMode, snapshotIntervalSecs, requestTimeoutMs,
                Objects.requireNonNull(options, "options"));
    }

    public int electionTimeoutMs() {
        return electionTimeoutMs;
    }

    public ReadMode readMode() {
        return readMode;
    }

    public int snapshotIntervalSecs() {
        return snapshotIntervalSecs;
    }

    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    public Options dbOptions() {
        return dbOptions;
    }
}

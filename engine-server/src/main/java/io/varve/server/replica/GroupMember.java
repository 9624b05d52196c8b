package io.varve.server.replica;

import io.varve.core.WriteBatch;
import io.varve.replication.ApplyListener;
import io.varve.replication.EntryRefusedException;
import io.varve.replication.NotLeaderException;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicationException;
import io.varve.server.resp.RedisError;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;

import java.util.concurrent.atomic.AtomicLong;

/**
 * This server's member of one Raft group, with the rules a command must pass before it reads or writes what
 * the group holds: used once by {@link RaftReplica} (one group over the whole keyspace) and once per group by
 * the cluster mode (a group per slot range).
 *
 * <p><b>Leader readiness.</b> A new leader may not yet have applied everything committed in earlier terms.
 * Before its first command in a term it waits for a read index, which completes only once it has committed an
 * entry of its own term and applied everything before it; it then resumes the version clock above the floor
 * its predecessor replicated.
 *
 * <p><b>Writes of unknown outcome.</b> A write that timed out after proposing may still apply later, so no
 * write may start from a state such an entry would overwrite afterwards: writes are admitted only once every
 * unknown outcome is settled — by a barrier entry proposed behind it and applied, or by a new term's read
 * index — and a write is refused at its commit if an outcome became unknown after its command was admitted
 * (it may have read while it waited for the timed-out write's locks). The command's <em>admission stamp</em>
 * ({@link #admitOnLeader}'s result, handed back to {@link #write}) is the count of unknown outcomes when it was
 * admitted; both counts only grow (a settle that finishes late raises the settled count to the larger of its
 * own and the current one, never lowers it). A commit also finds every unknown outcome settled, whatever its
 * command was admitted as: a command admitted as a read that writes after all (EXEC's queued commands, a
 * script) could otherwise commit from a state a timed-out write will still overwrite.
 *
 * <p>The settle is ordered by jraft, not by indexes: a write that timed out may still be in jraft's queue,
 * not yet in the log, so no log index read at its timeout bounds it; a barrier handed to jraft after it is
 * appended after it.
 *
 * <p>Thread-safe: admission runs on many command threads; the fields it shares are volatile and monotonic
 * enough that a race only costs an extra read index.
 */
public final class GroupMember {

    static final String CLUSTER_DOWN = "CLUSTERDOWN The cluster is down";
    /**
     * A write the group refused as it applied it: its slot was handed to another group meanwhile
     * (docs/cluster.md, "Moving slots between groups"). Redis's words for a slot being moved.
     */
    public static final String SLOT_MOVING = "TRYAGAIN Multiple keys request during rehashing of slot";
    static final String UNKNOWN_PENDING =
            "TRYAGAIN an earlier write of unknown outcome is still being replicated; retry";
    /** The admission stamp of a writer that runs outside any command (the expiry sweep). */
    public static final long BACKGROUND = -1;

    private final ReplicatedDb replicated;
    /** The entry a barrier writes: an internal key of this group that no command reads. */
    private final byte[] barrierKey;
    private volatile Keyspace keyspace;
    /** The leader term in which this member last confirmed it is caught up; -1 for none. */
    private volatile long readyTerm = -1;
    /** Writes whose outcome was unknown (timed out after proposing); only grows. */
    private final AtomicLong unknownWrites = new AtomicLong();
    /** How many of {@link #unknownWrites} are known decided (applied here, or never to apply); only grows. */
    private final AtomicLong settledWrites = new AtomicLong();
    /**
     * Runs between a barrier's apply and the rise of the settled count it earns. Tests hold a settle there
     * to finish a later one first; nothing else sets it.
     */
    volatile Runnable beforeSettledCountRises = () -> { };

    public GroupMember(ReplicatedDb replicated, String barrierName) {
        this.replicated = replicated;
        this.barrierKey = KeyEncoding.internalKey(barrierName);
    }

    public ReplicatedDb replicated() {
        return replicated;
    }

    public boolean isLeader() {
        return replicated.isLeader();
    }

    /** Tells the member the keyspace over its database, whose version clock a new leader resumes. */
    public void attach(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Tells {@code changes} of every entry this group applies here and every snapshot it installs. */
    public void onApplied(AppliedChanges changes) {
        replicated.onApplied(new ApplyListener() {
            @Override
            public void written(String family, byte[] key) {
                changes.written(key);
            }

            @Override
            public void replaced() {
                changes.replaced();
            }
        });
    }

    /**
     * Admits a command on what should be the leader: waits until it is caught up in its term, settles
     * earlier writes of unknown outcome if the command may write ({@code write}: a write flag, EXEC, a
     * script), and waits for a read index (writes too: one that ends up changing nothing answers from what it
     * read, and a deposed leader must not answer from a stale state). Returns the command's admission stamp.
     *
     * @throws NotLeaderException if this member does not lead (the caller redirects)
     * @throws RedisError         TRYAGAIN or CLUSTERDOWN when the group cannot confirm this leader now
     */
    public long admitOnLeader(boolean write) {
        return admitOnLeader(write, true);
    }

    /**
     * {@link #admitOnLeader(boolean)}, waiting for the read index only if {@code readIndex}. Without it the
     * command must confirm this member leads before it answers: by committing (its entry commits only while
     * this member leads, and it holds the locks of what it read until the entry is applied), or else by
     * {@link #confirmLeading}.
     */
    public long admitOnLeader(boolean write, boolean readIndex) {
        try {
            ensureReady();
            long unknown = unknownWrites.get();
            if (write && !settle(unknown)) {
                throw new RedisError(UNKNOWN_PENDING);
            }
            if (readIndex) {
                replicated.awaitReadIndex();
            }
            return unknown;
        } catch (NotLeaderException e) {
            throw e;
        } catch (ReplicationException e) {
            throw unconfirmed();
        }
    }

    /**
     * Waits for a read index: everything this member read before the call is then confirmed current, as a
     * read index at admission would have.
     *
     * @throws NotLeaderException if this member does not lead
     * @throws RedisError         TRYAGAIN or CLUSTERDOWN when the group cannot confirm this leader now
     */
    public void confirmLeading() {
        try {
            replicated.awaitReadIndex();
        } catch (NotLeaderException e) {
            throw e;
        } catch (ReplicationException e) {
            throw unconfirmed();
        }
    }

    private RedisError unconfirmed() {
        return new RedisError(replicated.leaderTerm() < 0 ? "TRYAGAIN the leader is starting; retry"
                : CLUSTER_DOWN + " (no majority confirmed this leader)");
    }

    /**
     * Whether a blind write (one that reads nothing, a plain SET) may be committed now without {@link
     * #admitOnLeader}, as a {@link #BACKGROUND} writer: this member leads, is caught up in its term and knows
     * every write of unknown outcome settled. It needs no read index: its entry commits only if this member
     * still leads, and it answers nothing it read. Never waits; when it says no, the command goes through
     * {@link #admitOnLeader}, which may wait for what is missing.
     */
    public boolean admitsBlindWriteAtOnce() {
        long term = replicated.leaderTerm();
        return term > 0 && term == readyTerm && settledWrites.get() >= unknownWrites.get();
    }

    /**
     * Whether a writer outside any command may write now: this member leads and its state includes every
     * entry committed before its term, and every write of unknown outcome is settled.
     */
    public boolean readyToWrite() {
        if (!replicated.isLeader()) {
            return false;
        }
        try {
            ensureReady();
            return settle(unknownWrites.get());
        } catch (ReplicationException e) {
            return false;
        }
    }

    /**
     * Proposes the batch and returns once it is committed and applied here. {@code admittedAt} is the
     * command's admission stamp, or {@link #BACKGROUND} for a writer outside any command; either way every
     * unknown outcome must be settled.
     */
    public void write(WriteBatch batch, long admittedAt) {
        long unknown = unknownWrites.get();
        if ((admittedAt >= 0 && admittedAt != unknown) || settledWrites.get() < unknown) {
            // An earlier write's outcome became unknown after this command was admitted (it may have read
            // while waiting for that write's locks), or is not yet settled (a command admitted as a read, a
            // background writer): what it read may still change.
            throw new RedisError(UNKNOWN_PENDING);
        }
        try {
            replicated.write(batch);
        } catch (NotLeaderException e) {
            throw new RedisError("TRYAGAIN this member stopped leading before the write was proposed; retry");
        } catch (EntryRefusedException e) {
            throw new RedisError(SLOT_MOVING);
        } catch (ReplicationException e) {
            unknownWrites.incrementAndGet();
            throw new RedisError("ERR the write may or may not have been applied: " + e.getMessage());
        }
    }

    /**
     * Whether the first {@code unknown} writes of unknown outcome are decided, proposing a barrier entry if
     * they are not: jraft appends one leader's tasks in the order they were handed to it, so once a barrier
     * handed over now is applied, every earlier task — including one still in jraft's queue when its write
     * timed out — has been applied or has failed for good.
     */
    private boolean settle(long unknown) {
        if (settledWrites.get() >= unknown) {
            return true;
        }
        try {
            replicated.write(new WriteBatch().put(barrierKey, new byte[0]));
        } catch (ReplicationException e) {
            return false;
        }
        beforeSettledCountRises.run();
        settledWrites.accumulateAndGet(unknown, Math::max);
        return true;
    }

    /** Once per leader term: waits until everything committed before the term is applied here. */
    private void ensureReady() {
        long term = replicated.leaderTerm();
        if (term > 0 && term == readyTerm) {
            return;
        }
        long unknown = unknownWrites.get();
        replicated.awaitReadIndex();
        // A read index of a new term is confirmed only once an entry of this term is committed: every entry
        // of an earlier term is then applied or gone for good, so the writes that timed out before are decided.
        settledWrites.accumulateAndGet(unknown, Math::max);
        Keyspace ks = keyspace;
        if (ks != null) {
            ks.resumeAsWriter();
        }
        readyTerm = term;
    }
}

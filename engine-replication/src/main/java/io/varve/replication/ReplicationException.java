package io.varve.replication;

/**
 * A replicated operation did not complete: it failed in Raft (no leader, the node stopped, a membership
 * change refused), or it did not complete within the configured time. A timed-out write may still commit
 * later; only an acknowledged write is known to be durable.
 */
public class ReplicationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ReplicationException(String message) {
        super(message);
    }

    public ReplicationException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.varve.replication;

import java.util.Optional;

/**
 * A write (or a membership change) reached a node that is not the group's leader. {@link #leader()} is the
 * leader this node knows of, if any; a client retries there.
 */
public final class NotLeaderException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    private final transient String leader;

    public NotLeaderException(String group, String self, String leader) {
        super("node " + self + " of group " + group + " is not the leader"
                + (leader == null ? " and knows of none" : "; the leader is " + leader));
        this.leader = leader;
    }

    /** The leader's address as {@code host:port}, when this node knows it. */
    public Optional<String> leader() {
        return Optional.ofNullable(leader);
    }
}

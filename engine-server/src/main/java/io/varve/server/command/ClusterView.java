package io.varve.server.command;

import java.util.List;

/**
 * The cluster as one replicated member sees it, for CLUSTER SLOTS, NODES, MYID and INFO: every member of the
 * Raft group with its client address; the leader serves all slots, the others are its replicas.
 *
 * @param members every member, in a stable order
 */
public record ClusterView(List<Member> members) {

    /**
     * @param id     40 hex digits, stable for the member's Raft address (as Redis Cluster node ids are)
     * @param host   client (RESP) host
     * @param port   client (RESP) port
     * @param leader whether it leads, as this member knows
     * @param myself whether it is the member answering
     */
    public record Member(String id, String host, int port, boolean leader, boolean myself) {
    }

    public Member myself() {
        return members.stream().filter(Member::myself).findFirst().orElseThrow();
    }

    /** The leader this member knows of, or null. */
    public Member leader() {
        return members.stream().filter(Member::leader).findFirst().orElse(null);
    }
}

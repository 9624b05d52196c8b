package io.varve.server.replica;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The replicated mode's settings, parsed from the server configuration (docs/replication.md, "The server's
 * replicated mode"). A peer is written {@code raftHost:raftPort/clientHost:clientPort}: Raft traffic and
 * clients use different ports, and a follower must name the leader's client address in its redirects, so
 * each member's client address travels with its Raft address in the one list every member is given.
 *
 * @param raftAddress          this member's Raft address; must be one of the peers
 * @param peers                every member's Raft address and the client address it serves RESP on
 * @param leaseReads           reads on the leader confirmed by jraft's leader lease instead of a heartbeat round
 * @param snapshotIntervalSecs how often each member snapshots its state so the Raft log before it is dropped
 * @param electionTimeoutMs    how long a follower waits for the leader before it stands for election
 * @param listenPort           the port Raft listens on when peers reach it through a mapping or proxy at
 *                             raftAddress; 0 for raftAddress's own port
 */
public record ReplicationSettings(String raftAddress, Map<String, String> peers, boolean leaseReads,
                                  int snapshotIntervalSecs, int electionTimeoutMs, int listenPort) {

    /**
     * Parses the settings; {@code raftAddress} empty means not replicated (empty result).
     *
     * @throws IllegalArgumentException naming the parameter that is wrong
     */
    public static Optional<ReplicationSettings> parse(String raftAddress, String peerList, String readMode,
                                                      int snapshotIntervalSecs, int electionTimeoutMs,
                                                      int listenPort) {
        String self = raftAddress.trim();
        if (self.isEmpty()) {
            if (!peerList.isBlank()) {
                throw new IllegalArgumentException("raft-peers needs raft-address (this member's entry)");
            }
            return Optional.empty();
        }
        hostPort("raft-address", self);
        Map<String, String> peers = new LinkedHashMap<>();
        for (String entry : peerList.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int slash = e.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("raft-peers entries are raftHost:raftPort/clientHost:clientPort: "
                        + e);
            }
            String raft = hostPort("raft-peers", e.substring(0, slash));
            String client = hostPort("raft-peers", e.substring(slash + 1));
            if (peers.put(raft, client) != null) {
                throw new IllegalArgumentException("raft-peers names " + raft + " twice");
            }
        }
        if (!peers.containsKey(self)) {
            throw new IllegalArgumentException("raft-peers must include this member's raft-address " + self);
        }
        boolean lease = switch (readMode.trim().toLowerCase(Locale.ROOT)) {
            case "readindex" -> false;
            case "lease" -> true;
            default -> throw new IllegalArgumentException("raft-read-mode must be readindex or lease: " + readMode);
        };
        return Optional.of(new ReplicationSettings(self, Map.copyOf(peers), lease, snapshotIntervalSecs,
                electionTimeoutMs, listenPort));
    }

    /** The Raft addresses of all members, for the group's initial configuration. */
    public List<String> raftPeers() {
        return new ArrayList<>(peers.keySet());
    }

    /** The client (RESP) address of the member at {@code raft}, if it is a configured peer. */
    public Optional<String> clientAddressOf(String raft) {
        return Optional.ofNullable(peers.get(raft));
    }

    private static String hostPort(String parameter, String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException(parameter + ": not host:port: " + text);
        }
        try {
            int port = Integer.parseInt(t.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(parameter + ": port out of range: " + text);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(parameter + ": not host:port: " + text);
        }
        return t;
    }
}

package io.varve.replication;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.PeerId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Who belongs to one replicated group, as one member sees it, and the changes to it: voters and learners
 * added and removed through jraft's joint consensus, and leadership handed to another member. Obtained from
 * {@link ReplicatedDb#membership()}; the changes are asked of the leader, and a change on another member
 * fails as a write there does. Every call goes to the member's jraft node, so it is as thread-safe as the
 * node: concurrent changes are for jraft to order or refuse.
 */
public final class GroupMembership {

    private final ReplicatedDb member;
    private final Node node;

    GroupMembership(ReplicatedDb member, Node node) {
        this.member = member;
        this.node = node;
    }

    /**
     * The group's voting members as this member knows them: the newest configuration in its log (on a
     * follower possibly not yet committed, or behind the leader's until it catches up).
     */
    public List<String> peers() {
        // Node.listPeers answers only on the leader; NodeImpl knows the configuration on every member.
        return addresses(configuration().getPeers());
    }

    /**
     * The group's learners as this member knows them: members that receive and apply the log but neither vote
     * nor count towards a commit (the newest configuration in its log, as {@link #peers()}).
     */
    public List<String> learners() {
        return addresses(configuration().getLearners());
    }

    /**
     * Adds a member (on the leader): the new one catches up from the log, or from a snapshot if the log it
     * needs was compacted, and joins once it has. It must be running, opened with the group's current peers.
     */
    public void addPeer(String address) {
        PeerId peer = ReplicationProcess.parsePeer(address);
        change("add peer", done -> node.addPeer(peer, done::complete));
    }

    public void removePeer(String address) {
        PeerId peer = ReplicationProcess.parsePeer(address);
        change("remove peer", done -> node.removePeer(peer, done::complete));
    }

    /**
     * Adds a learner (on the leader): it receives the log, or a snapshot if the log it needs was compacted,
     * and applies it, without voting, so the group's quorum is unchanged. It must be running, opened with no
     * peers. Adding a learner already there changes nothing.
     */
    public void addLearner(String address) {
        PeerId peer = ReplicationProcess.parsePeer(address);
        change("add learner", done -> node.addLearners(List.of(peer), done::complete));
    }

    /** Removes a learner (on the leader); the member stops receiving the log and keeps what it applied. */
    public void removeLearner(String address) {
        PeerId peer = ReplicationProcess.parsePeer(address);
        change("remove learner", done -> node.removeLearners(List.of(peer), done::complete));
    }

    /**
     * Asks jraft to make {@code address}, a member of the group, the leader (on the leader; jraft's
     * leadership transfer: the leader stops taking writes, brings the target's log up to date and tells it
     * to stand for election at once). Returns whether the transfer started; it completes asynchronously, and
     * if the target does not win within an election timeout this member resumes leading.
     */
    public boolean transferLeadershipTo(String address) {
        return node.transferLeadershipTo(ReplicationProcess.parsePeer(address)).isOk();
    }

    /**
     * The members the leader heard from within its lease (itself included); empty on a follower, which
     * does not track the others.
     */
    public List<String> alivePeers() {
        if (!node.isLeader()) {
            return List.of();
        }
        return addresses(node.listAlivePeers());
    }

    private Configuration configuration() {
        return ((NodeImpl) node).getCurrentConf();
    }

    /** Starts a configuration change and waits, as long as a write may take, for jraft to report it done. */
    private void change(String what, Consumer<CompletableFuture<Status>> start) {
        CompletableFuture<Status> status = new CompletableFuture<>();
        start.accept(status);
        member.await(status.thenApply(s -> {
            if (!s.isOk()) {
                throw member.failure(s, what);
            }
            return null;
        }), what);
    }

    private static List<String> addresses(Collection<PeerId> peers) {
        List<String> addresses = new ArrayList<>();
        for (PeerId peer : peers) {
            addresses.add(peer.getEndpoint().toString());
        }
        return addresses;
    }
}

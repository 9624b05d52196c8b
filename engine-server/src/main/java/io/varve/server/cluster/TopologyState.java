package io.varve.server.cluster;

import io.varve.server.command.KeySlot;
import io.varve.server.replica.RaftReplica;
import io.varve.server.replica.ReplicationSettings;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * The cluster's topology as the metadata group replicates it (docs/cluster.md, "Topology"): the nodes and
 * their addresses, every group with its members and preferred leader, the owner of each slot, the slot
 * change in progress if any, and an epoch that every change raises by one. Immutable: each operation returns
 * the next state, and {@link #encode} is what the metadata group stores.
 *
 * <p><b>A slot change</b> ({@link Change}) moves a set of slots from the groups owning them (its sources) to
 * a target group, in two phases: {@link Phase#FENCING} while the sources stop accepting the slots (owners
 * unchanged), then {@link Phase#HANDOFF} with the target as owner while the target starts accepting them; the
 * change is then cleared. One change runs at a time.
 *
 * <p><b>A replica move</b> ({@link ReplicaMove}) replaces one member of a group by a node that is not one: it
 * is recorded when it begins and cleared, with the member list changed, when the group's configuration has
 * changed ({@link #replicaMoved}); the steps between are the group's ({@link ReplicaMover}). A replica move and
 * a slot change never run together: an accept waiting for a fence on a node that is leaving the source group
 * would wait forever, and a slot change between groups on different nodes would move no data.
 *
 * <p><b>Encoding</b> (big-endian; a string is a u16 length and modified UTF-8, as DataOutput.writeUTF writes
 * it; a range list is a u16 count of u16 first, u16 last pairs):
 * <pre>
 *   u8 FORMAT_VERSION | u64 epoch | u16 seedGroups
 *   u16 nodes  { str raftAddress, str clientAddress }
 *   u16 groups { str preferredLeader, u16 members { str raftAddress } }
 *   u16 runs   { u16 first, u16 last, u16 group }          (owners, as maximal runs in slot order)
 *   u8 hasChange [ u64 id | u16 target | u8 phase | ranges slots | u16 sources { u16 group } ]
 *   u8 hasMove [ u64 id | u16 group | str from | str to ]     (absent in a state written before moves existed)
 * </pre>
 */
final class TopologyState {

    static final int FORMAT_VERSION = 1;

    /** @param raft its Raft address, its identity; @param client its client address, host:port */
    record Node(String raft, String client) {
        String id() {
            return RaftReplica.nodeId(raft);
        }
    }

    /** @param members the Raft addresses of its members; @param preferredLeader where the balancer puts its leader */
    record Group(List<String> members, String preferredLeader) {
    }

    enum Phase { FENCING, HANDOFF }

    /**
     * @param id      the epoch the change began at; the groups' fence and accept entries carry it
     * @param slots   the slots moving
     * @param target  the group taking them
     * @param sources the groups giving them up
     */
    record Change(long id, BitSet slots, int target, List<Integer> sources, Phase phase) {
    }

    /**
     * @param id    the epoch the move began at
     * @param group the group whose replica moves
     * @param from  the Raft address of the member leaving
     * @param to    the Raft address of the node joining
     */
    record ReplicaMove(long id, int group, String from, String to) {
    }

    private final long epoch;
    private final int seedGroups;
    private final List<Node> nodes;
    private final List<Group> groups;
    private final int[] owners;
    private final Change change;
    private final ReplicaMove move;

    private TopologyState(long epoch, int seedGroups, List<Node> nodes, List<Group> groups, int[] owners,
                          Change change, ReplicaMove move) {
        this.epoch = epoch;
        this.seedGroups = seedGroups;
        this.nodes = List.copyOf(nodes);
        this.groups = List.copyOf(groups);
        this.owners = owners;
        this.change = change;
        this.move = move;
    }

    /**
     * The state every node computes alike from its start arguments, before any change: the nodes ordered by
     * Raft address, {@code groups} groups of every node splitting the slots evenly, group g preferring node
     * g mod n, epoch 1.
     */
    static TopologyState seed(ReplicationSettings settings, int groups) {
        List<Node> nodes = new ArrayList<>();
        for (String raft : new TreeSet<>(settings.peers().keySet())) {
            nodes.add(new Node(raft, settings.peers().get(raft)));
        }
        return seed(nodes, groups);
    }

    static TopologyState seed(List<Node> nodes, int groups) {
        List<Node> sorted = nodes.stream().sorted(Comparator.comparing(Node::raft)).toList();
        List<String> members = sorted.stream().map(Node::raft).toList();
        List<Group> list = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            list.add(new Group(members, members.get(g % members.size())));
        }
        return new TopologyState(1, groups, sorted, list, SlotMap.evenly(groups, 1).owners(), null, null);
    }

    /**
     * What a node started to join a running cluster ({@code cluster-join}) serves until the metadata group
     * gives it the cluster's state: itself alone, no group, epoch 0. The metadata group's gate takes whatever
     * state comes first after it (docs/cluster.md, "Adding and removing nodes").
     */
    static TopologyState joining(String raft, String client) {
        return new TopologyState(0, 0, List.of(new Node(raft, client)), List.of(), new int[KeySlot.SLOTS], null,
                null);
    }

    /** Whether this is the state of a node waiting to be met ({@link #joining}). */
    boolean waitingToJoin() {
        return epoch == 0;
    }

    long epoch() {
        return epoch;
    }

    int seedGroups() {
        return seedGroups;
    }

    List<Node> nodes() {
        return nodes;
    }

    List<Group> groups() {
        return groups;
    }

    Change change() {
        return change;
    }

    /** The replica move in progress, or null. */
    ReplicaMove move() {
        return move;
    }

    SlotMap slotMap() {
        return new SlotMap(owners, epoch);
    }

    int ownerOf(int slot) {
        return owners[slot];
    }

    // ---- operations: each returns the next state (epoch + 1) or throws IllegalArgumentException with the
    // error reply, in Redis's style

    /** Begins moving slots {@code first}..{@code last} to {@code target}. */
    TopologyState beginMove(int first, int last, int target) {
        requireNoChange();
        requireNoMove();
        if (first < 0 || last >= KeySlot.SLOTS || first > last) {
            throw new IllegalArgumentException("ERR Invalid or out of range slot");
        }
        requireGroup(target);
        BitSet slots = new BitSet(KeySlot.SLOTS);
        for (int s = first; s <= last; s++) {
            if (owners[s] != target) {
                slots.set(s);
            }
        }
        if (slots.isEmpty()) {
            throw new IllegalArgumentException("ERR slots " + first + "-" + last + " already belong to group "
                    + target);
        }
        return withChange(groups, slots, target);
    }

    /**
     * Creates a group on the members of {@code group} and begins moving the upper half of {@code group}'s
     * slots (in slot order) to it. The new group prefers the node that is preferred by the fewest groups.
     */
    TopologyState beginSplit(int group) {
        requireNoChange();
        requireNoMove();
        requireGroup(group);
        BitSet own = slotsOf(group);
        if (own.cardinality() < 2) {
            throw new IllegalArgumentException("ERR group " + group + " owns fewer than 2 slots");
        }
        BitSet moving = new BitSet(KeySlot.SLOTS);
        int keep = own.cardinality() / 2;
        int seen = 0;
        for (int s = own.nextSetBit(0); s >= 0; s = own.nextSetBit(s + 1)) {
            if (seen++ >= keep) {
                moving.set(s);
            }
        }
        List<String> members = groups.get(group).members();
        String preferred = members.stream()
                .min(Comparator.comparingLong((String m) -> groups.stream()
                        .filter(g -> g.preferredLeader().equals(m)).count()).thenComparing(m -> m))
                .orElseThrow();
        List<Group> next = new ArrayList<>(groups);
        next.add(new Group(members, preferred));
        return withChange(next, moving, next.size() - 1);
    }

    /** The sources have stopped accepting the change's slots: the target owns them now. */
    TopologyState fenced() {
        if (change == null || change.phase() != Phase.FENCING) {
            throw new IllegalArgumentException("ERR no slot change is fencing");
        }
        int[] next = owners.clone();
        for (int s = change.slots().nextSetBit(0); s >= 0; s = change.slots().nextSetBit(s + 1)) {
            next[s] = change.target();
        }
        Change handoff = new Change(change.id(), change.slots(), change.target(), change.sources(), Phase.HANDOFF);
        return new TopologyState(epoch + 1, seedGroups, nodes, groups, next, handoff, move);
    }

    /** The target accepts the change's slots: the change is over. */
    TopologyState handedOff() {
        if (change == null || change.phase() != Phase.HANDOFF) {
            throw new IllegalArgumentException("ERR no slot change is handing off");
        }
        return new TopologyState(epoch + 1, seedGroups, nodes, groups, owners, null, move);
    }

    TopologyState withPreferredLeader(int group, String raft) {
        requireGroup(group);
        if (!groups.get(group).members().contains(raft)) {
            throw new IllegalArgumentException("ERR node " + raft + " is not a member of group " + group);
        }
        List<Group> next = new ArrayList<>(groups);
        next.set(group, new Group(groups.get(group).members(), raft));
        return new TopologyState(epoch + 1, seedGroups, nodes, next, owners, change, move);
    }

    /** Adds a node, member of no group (CLUSTER MEET); unchanged if it is there already. */
    TopologyState withNode(String raft, String client) {
        for (Node n : nodes) {
            if (n.raft().equals(raft) && n.client().equals(client)) {
                return this;
            }
            if (n.raft().equals(raft) || n.client().equals(client)) {
                throw new IllegalArgumentException("ERR node " + n.client() + " (Raft " + n.raft()
                        + ") is already in the cluster under other addresses");
            }
        }
        List<Node> next = new ArrayList<>(nodes);
        next.add(new Node(raft, client));
        next.sort(Comparator.comparing(Node::raft));
        return new TopologyState(epoch + 1, seedGroups, next, groups, owners, change, move);
    }

    /**
     * Removes a node that holds no group's replica (CLUSTER FORGET).
     *
     * @throws IllegalArgumentException naming the groups it still holds, or if it is unknown
     */
    TopologyState withoutNode(String raft) {
        Node gone = nodes.stream().filter(n -> n.raft().equals(raft)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("ERR Unknown node " + RaftReplica.nodeId(raft)));
        if (move != null && (move.from().equals(raft) || move.to().equals(raft))) {
            throw new IllegalArgumentException("ERR node " + gone.id() + " takes part in the replica move in "
                    + "progress (epoch " + move.id() + "); retry once it completes");
        }
        List<Integer> held = groupsOf(raft);
        if (!held.isEmpty()) {
            throw new IllegalArgumentException("ERR node " + gone.id() + " still holds replicas of groups "
                    + held.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                    + "; move them to other nodes first");
        }
        List<Node> next = new ArrayList<>(nodes);
        next.remove(gone);
        return new TopologyState(epoch + 1, seedGroups, next, groups, owners, change, move);
    }

    /**
     * Begins moving {@code group}'s replica from the member {@code from} to the node {@code to} (Raft
     * addresses), which is not a member. A group preferring {@code from} as its leader prefers {@code to}.
     */
    TopologyState beginReplicaMove(int group, String from, String to) {
        requireNoChange();
        requireNoMove();
        requireGroup(group);
        List<String> members = groups.get(group).members();
        if (!members.contains(requireNode(from))) {
            throw new IllegalArgumentException("ERR node " + RaftReplica.nodeId(from) + " is not a member of group "
                    + group);
        }
        if (members.contains(requireNode(to))) {
            throw new IllegalArgumentException("ERR node " + RaftReplica.nodeId(to) + " is already a member of group "
                    + group);
        }
        List<Group> next = groups;
        if (groups.get(group).preferredLeader().equals(from)) {
            // The balancer then hands the leadership to the new member once it votes, never back to the old.
            next = new ArrayList<>(groups);
            next.set(group, new Group(members, to));
        }
        return new TopologyState(epoch + 1, seedGroups, nodes, next, owners, null,
                new ReplicaMove(epoch + 1, group, from, to));
    }

    /**
     * The group's configuration has changed as the move of epoch {@code id} asked: its member list names the
     * new node instead of the old, whose leader preference, if it had it, goes to the member preferred by the
     * fewest groups; the move is over.
     */
    TopologyState replicaMoved(long id) {
        if (move == null || move.id() != id) {
            throw new IllegalArgumentException("ERR no replica move of epoch " + id + " is in progress");
        }
        Group moved = groups.get(move.group());
        List<String> members = new ArrayList<>(moved.members());
        members.remove(move.from());
        members.add(move.to());
        members.sort(null);
        String preferred = moved.preferredLeader();
        if (preferred.equals(move.from())) {
            preferred = members.stream()
                    .min(Comparator.comparingLong((String m) -> groups.stream()
                            .filter(g -> g.preferredLeader().equals(m)).count()).thenComparing(m -> m))
                    .orElseThrow();
        }
        List<Group> next = new ArrayList<>(groups);
        next.set(move.group(), new Group(List.copyOf(members), preferred));
        return new TopologyState(epoch + 1, seedGroups, nodes, next, owners, change, null);
    }

    /** The groups {@code raft} is a member of, ascending. */
    List<Integer> groupsOf(String raft) {
        List<Integer> held = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            if (groups.get(g).members().contains(raft)) {
                held.add(g);
            }
        }
        return held;
    }

    /** The slots {@code group} owns. */
    BitSet slotsOf(int group) {
        BitSet slots = new BitSet(KeySlot.SLOTS);
        for (int s = 0; s < KeySlot.SLOTS; s++) {
            if (owners[s] == group) {
                slots.set(s);
            }
        }
        return slots;
    }

    private TopologyState withChange(List<Group> nextGroups, BitSet slots, int target) {
        TreeSet<Integer> sources = new TreeSet<>();
        for (int s = slots.nextSetBit(0); s >= 0; s = slots.nextSetBit(s + 1)) {
            sources.add(owners[s]);
        }
        TreeSet<String> onNodes = new TreeSet<>(nextGroups.get(target).members());
        for (int source : sources) {
            if (!new TreeSet<>(groups.get(source).members()).equals(onNodes)) {
                throw new IllegalArgumentException("ERR groups " + source + " and " + target + " have different "
                        + "members; slots move only between groups on the same nodes");
            }
        }
        Change begun = new Change(epoch + 1, slots, target, List.copyOf(sources), Phase.FENCING);
        return new TopologyState(epoch + 1, seedGroups, nodes, nextGroups, owners, begun, null);
    }

    private void requireNoChange() {
        if (change != null) {
            throw new IllegalArgumentException("ERR a slot change is in progress (epoch " + change.id()
                    + "); retry once it completes");
        }
    }

    private void requireNoMove() {
        if (move != null) {
            throw new IllegalArgumentException("ERR a replica move is in progress (epoch " + move.id()
                    + "); retry once it completes");
        }
    }

    private String requireNode(String raft) {
        if (nodes.stream().noneMatch(n -> n.raft().equals(raft))) {
            throw new IllegalArgumentException("ERR Unknown node " + RaftReplica.nodeId(raft));
        }
        return raft;
    }

    private void requireGroup(int group) {
        if (group < 0 || group >= groups.size()) {
            throw new IllegalArgumentException("ERR no such group: " + group);
        }
    }

    // ---- encoding

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeLong(epoch);
            out.writeShort(seedGroups);
            out.writeShort(nodes.size());
            for (Node n : nodes) {
                out.writeUTF(n.raft());
                out.writeUTF(n.client());
            }
            out.writeShort(groups.size());
            for (Group g : groups) {
                out.writeUTF(g.preferredLeader());
                out.writeShort(g.members().size());
                for (String m : g.members()) {
                    out.writeUTF(m);
                }
            }
            List<int[]> runs = new ArrayList<>();
            for (int s = 0; s < KeySlot.SLOTS; s++) {
                if (s == 0 || owners[s] != owners[s - 1]) {
                    runs.add(new int[] {s, s, owners[s]});
                } else {
                    runs.getLast()[1] = s;
                }
            }
            out.writeShort(runs.size());
            for (int[] run : runs) {
                out.writeShort(run[0]);
                out.writeShort(run[1]);
                out.writeShort(run[2]);
            }
            out.writeBoolean(change != null);
            if (change != null) {
                out.writeLong(change.id());
                out.writeShort(change.target());
                out.writeByte(change.phase().ordinal());
                writeRanges(out, change.slots());
                out.writeShort(change.sources().size());
                for (int source : change.sources()) {
                    out.writeShort(source);
                }
            }
            out.writeBoolean(move != null);
            if (move != null) {
                out.writeLong(move.id());
                out.writeShort(move.group());
                out.writeUTF(move.from());
                out.writeUTF(move.to());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static TopologyState decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(encoded))) {
            int version = in.readUnsignedByte();
            if (version != FORMAT_VERSION) {
                throw new IllegalArgumentException("topology format " + version + " is not " + FORMAT_VERSION);
            }
            long epoch = in.readLong();
            int seedGroups = in.readUnsignedShort();
            List<Node> nodes = new ArrayList<>();
            for (int i = in.readUnsignedShort(); i > 0; i--) {
                nodes.add(new Node(in.readUTF(), in.readUTF()));
            }
            List<Group> groups = new ArrayList<>();
            for (int i = in.readUnsignedShort(); i > 0; i--) {
                String preferred = in.readUTF();
                List<String> members = new ArrayList<>();
                for (int m = in.readUnsignedShort(); m > 0; m--) {
                    members.add(in.readUTF());
                }
                groups.add(new Group(List.copyOf(members), preferred));
            }
            int[] owners = new int[KeySlot.SLOTS];
            for (int i = in.readUnsignedShort(); i > 0; i--) {
                int first = in.readUnsignedShort();
                int last = in.readUnsignedShort();
                java.util.Arrays.fill(owners, first, last + 1, in.readUnsignedShort());
            }
            Change change = null;
            if (in.readBoolean()) {
                long id = in.readLong();
                int target = in.readUnsignedShort();
                Phase phase = Phase.values()[in.readUnsignedByte()];
                BitSet slots = readRanges(in);
                List<Integer> sources = new ArrayList<>();
                for (int i = in.readUnsignedShort(); i > 0; i--) {
                    sources.add(in.readUnsignedShort());
                }
                change = new Change(id, slots, target, List.copyOf(sources), phase);
            }
            ReplicaMove move = null;
            if (in.available() > 0 && in.readBoolean()) {
                move = new ReplicaMove(in.readLong(), in.readUnsignedShort(), in.readUTF(), in.readUTF());
            }
            return new TopologyState(epoch, seedGroups, nodes, groups, owners, change, move);
        } catch (IOException e) {
            throw new IllegalArgumentException("a truncated topology", e);
        }
    }

    static void writeRanges(DataOutputStream out, BitSet slots) throws IOException {
        List<int[]> ranges = new ArrayList<>();
        int s = slots.nextSetBit(0);
        while (s >= 0) {
            int end = slots.nextClearBit(s);
            ranges.add(new int[] {s, end - 1});
            s = slots.nextSetBit(end);
        }
        out.writeShort(ranges.size());
        for (int[] r : ranges) {
            out.writeShort(r[0]);
            out.writeShort(r[1]);
        }
    }

    static BitSet readRanges(DataInputStream in) throws IOException {
        BitSet slots = new BitSet(KeySlot.SLOTS);
        for (int i = in.readUnsignedShort(); i > 0; i--) {
            int first = in.readUnsignedShort();
            slots.set(first, in.readUnsignedShort() + 1);
        }
        return slots;
    }

    @Override
    public String toString() {
        return "TopologyState[epoch " + epoch + ", " + groups.size() + " groups, change " + change + ", move "
                + move + "]";
    }
}

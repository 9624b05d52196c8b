package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.replication.ApplyGate;
import io.varve.replication.ReplicatedBatch;
import io.varve.server.command.KeySlot;
import io.varve.server.store.KeyEncoding;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Which slots one data group accepts, decided in the group's own log order on every member: the safety half
 * of moving slots between groups (docs/cluster.md, "Moving slots between groups"). An entry writing a key of
 * a slot the group does not accept is refused as it applies, on every member alike, whatever its leader
 * believed when it admitted the command; so after a <b>fence</b> entry no later entry of the group touches the
 * fenced slots. An <b>accept</b> entry adds slots once every group it takes them from has applied its fence
 * <em>on this node</em> ({@link SlotGates#awaitChange}): since all groups of a node write one database, the
 * new owner's writes to a slot then always land after the old owner's, on every node, and its leader reads
 * the old owner's last writes.
 *
 * <p>Both control entries are one operation on the group's control key, {@code <internal>slot-gate/<group>}:
 * <pre>
 *   fence:  u8 FENCE  | u64 change id | ranges slots
 *   accept: u8 ACCEPT | u64 change id | ranges slots | u16 sources { u16 group }
 *   stored: u8 STATE  | u64 last change id | ranges accepted      (what the gate writes in their place)
 * </pre>
 * (ranges as in {@link TopologyState}). The gate rewrites a control entry into the resulting state, so the
 * database holds the accepted set as of its applied index, read back when the member opens; a group that has
 * none yet accepts its seed ranges. A control entry older than the last one applied (a delayed retry) is
 * refused.
 *
 * <p>Threads: {@link #admit} runs on the group's state-machine thread; {@link #accepts} on command threads
 * reads the volatile set, replaced whole on each change.
 */
final class SlotGate implements ApplyGate {

    static final byte STATE = 0;
    static final byte FENCE = 1;
    static final byte ACCEPT = 2;

    private final int group;
    private final byte[] controlKey;
    private final SlotGates gates;
    private volatile BitSet accepted;
    private volatile long lastChange;

    private SlotGate(int group, BitSet accepted, long lastChange, SlotGates gates) {
        this.group = group;
        this.controlKey = controlKey(group);
        this.accepted = accepted;
        this.lastChange = lastChange;
        this.gates = gates;
    }

    /** The gate of {@code group} as the database holds it, or accepting {@code seed} if it holds none. */
    static SlotGate open(Db db, int group, BitSet seed, SlotGates gates) {
        byte[] stored = db.get(controlKey(group));
        SlotGate gate;
        if (stored == null) {
            gate = new SlotGate(group, (BitSet) seed.clone(), 0, gates);
        } else {
            try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(stored))) {
                in.readByte();
                long last = in.readLong();
                gate = new SlotGate(group, TopologyState.readRanges(in), last, gates);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        gates.register(group, gate);
        return gate;
    }

    static byte[] controlKey(int group) {
        return KeyEncoding.internalKey("slot-gate/" + ClusterTopology.groupName(group));
    }

    /** The entry that stops the group accepting {@code slots}. */
    static ReplicatedBatch fence(int group, long change, BitSet slots) {
        return control(group, FENCE, change, slots, List.of());
    }

    /** The entry that makes the group accept {@code slots} once {@code sources} have fenced {@code change} here. */
    static ReplicatedBatch accept(int group, long change, BitSet slots, List<Integer> sources) {
        return control(group, ACCEPT, change, slots, sources);
    }

    boolean accepts(int slot) {
        return accepted.get(slot);
    }

    /** The slots it accepts now (a copy). */
    BitSet accepted() {
        return (BitSet) accepted.clone();
    }

    /** The id of the last change this group applied here (0: none). */
    long lastChange() {
        return lastChange;
    }

    @Override
    public List<ReplicatedBatch.Op> admit(long index, List<ReplicatedBatch.Op> ops) {
        if (ops.size() == 1 && Arrays.equals(ops.getFirst().key(), controlKey) && ops.getFirst().value() != null) {
            return control(ops.getFirst());
        }
        BitSet now = accepted;
        for (ReplicatedBatch.Op op : ops) {
            int slot = BatchRouting.slotOf(op.key());
            if (slot >= 0 && !now.get(slot)) {
                return null;
            }
        }
        return ops;
    }

    private List<ReplicatedBatch.Op> control(ReplicatedBatch.Op op) {
        BitSet next = (BitSet) accepted.clone();
        long change;
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(op.value()))) {
            byte kind = in.readByte();
            change = in.readLong();
            if (kind == STATE || change < lastChange) {
                return null;
            }
            BitSet slots = TopologyState.readRanges(in);
            if (kind == FENCE) {
                next.andNot(slots);
            } else {
                for (int i = in.readUnsignedShort(); i > 0; i--) {
                    int source = in.readUnsignedShort();
                    if (source != group) {
                        gates.awaitChange(source, change);
                    }
                }
                next.or(slots);
            }
        } catch (IOException e) {
            return null;
        }
        accepted = next;
        lastChange = change;
        gates.changed();
        return List.of(new ReplicatedBatch.Op(op.family(), op.key(), encodeState(change, next)));
    }

    private static ReplicatedBatch control(int group, byte kind, long change, BitSet slots, List<Integer> sources) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(kind);
            out.writeLong(change);
            TopologyState.writeRanges(out, slots);
            if (kind == ACCEPT) {
                out.writeShort(sources.size());
                for (int source : sources) {
                    out.writeShort(source);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ReplicatedBatch().put(controlKey(group), bytes.toByteArray());
    }

    private static byte[] encodeState(long change, BitSet slots) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(STATE);
            out.writeLong(change);
            TopologyState.writeRanges(out, slots);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The seed ranges of {@code group}: its share of an even map of {@code seedGroups} groups, or none. */
    static BitSet seed(int group, int seedGroups) {
        BitSet slots = new BitSet(KeySlot.SLOTS);
        if (group < seedGroups) {
            SlotMap.evenly(seedGroups, 1).rangesOf(group).forEach(r -> slots.set(r.first(), r.last() + 1));
        }
        return slots;
    }

    @Override
    public String toString() {
        return "SlotGate[" + ClusterTopology.groupName(group) + ", change " + lastChange + ", "
                + accepted.cardinality() + " slots]";
    }
}

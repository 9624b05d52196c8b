package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.WriteOptions;
import io.varve.replication.ApplyGate;
import io.varve.replication.GroupShare;
import io.varve.replication.ReplicatedBatch;
import io.varve.server.command.KeySlot;
import io.varve.server.store.KeyEncoding;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
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
 *   stored: a {@link SlotGateState}                                (what the gate writes in their place)
 * </pre>
 * (ranges as in {@link TopologyState}). The gate rewrites a control entry into the resulting state, so the
 * database holds the gate's state as of its applied index, read back when the member opens; a group that has
 * none yet accepts its seed ranges. A control entry older than the last one applied (a delayed retry) is
 * refused.
 *
 * <p><b>Snapshots.</b> The gate is also the group's {@link GroupShare}: a snapshot carries the gate's state and
 * the key ranges ({@link GroupKeyRanges}) of the slots the group accepts and of every slot it handed away. An
 * install runs in two steps, each replacing its ranges:
 * <ol>
 *   <li>the slots handed away by fences this member never applied (it lacks the group's last writes to them,
 *       and no group writes them here: their new owner's accept waits for this group's fence). Then the gate
 *       takes the snapshot's change id and handed-away slots and keeps, of the slots it accepted, those the
 *       snapshot accepts too, stored durably if the step replaced ranges, and wakes the groups waiting for
 *       its fences.</li>
 *   <li>first waiting, for every accept entry behind the slots the snapshot accepts, until each group the
 *       slots came from has applied its fence here ({@link SlotGates#awaitChange}), as the accept entry itself
 *       waited when this member applied it (then the wait ends at once): the old owner's entries before its
 *       fence may still write those slots here, and would land on top of the snapshot's newer records. Then
 *       the slots the snapshot accepts are replaced and the gate takes the snapshot's state, stored durably;
 *       only now does it accept the slots it took over.</li>
 * </ol>
 * A member that never held the group (a node a replica moves to: {@link #openJoining}) skips the first step's
 * ranges: on its node those slots belong to other groups, or hold nothing; its gate still takes the snapshot's
 * fences. Such a member refuses every entry until its first install: it can only have been sent the log from
 * the group's first entry, whose records predate fences whose slots other groups own here now.
 * A wait in either place is only for a group this node replicates ({@link SlotGates#awaitChange}).
 *
 * <p>The first step never waits, so the groups waiting for this group's fences never wait for its install; the
 * second waits only for fences of changes up to the snapshot's, each reached without waiting on this group
 * (control entries apply in change order, and every wait is for a smaller or equal change), so installs
 * and moves cannot wait on each other in a circle. A crash between the steps leaves the stored state of the
 * first: the load that follows finds no fence unapplied and skips straight to the second.
 *
 * <p>Threads: {@link #admit} and the snapshot methods run on the group's state-machine thread; {@link #accepts}
 * on command threads reads the volatile state, replaced whole on each change.
 */
final class SlotGate implements ApplyGate, GroupShare {

    static final byte STATE = 0;
    static final byte FENCE = 1;
    static final byte ACCEPT = 2;

    private final int group;
    private final Db db;
    private final byte[] controlKey;
    private final SlotGates gates;
    private volatile SlotGateState state;
    /** Whether this member never held the group's data: true until it stores a state of its own. */
    private volatile boolean neverHeld;
    /** Whether log entries reached this member while it never held the group: it must start afresh. */
    private volatile boolean sentLogBeforeSnapshot;

    private SlotGate(int group, Db db, SlotGateState state, SlotGates gates, boolean neverHeld) {
        this.group = group;
        this.db = db;
        this.controlKey = controlKey(group);
        this.state = state;
        this.gates = gates;
        this.neverHeld = neverHeld;
    }

    /** The gate of {@code group} as the database holds it, or accepting {@code seed} if it holds none. */
    static SlotGate open(Db db, int group, BitSet seed, SlotGates gates) {
        byte[] stored = db.get(controlKey(group));
        SlotGate gate = new SlotGate(group, db,
                stored == null ? SlotGateState.seeded(seed) : SlotGateState.decode(stored), gates, false);
        gates.register(group, gate);
        return gate;
    }

    /**
     * The gate of {@code group} on a node joining it (a replica moving there), which catches up from a
     * snapshot: accepting nothing and never having held the group, unless the database holds a state (the
     * node stored the first install's state before it restarted).
     */
    static SlotGate openJoining(Db db, int group, SlotGates gates) {
        byte[] stored = db.get(controlKey(group));
        SlotGate gate = stored != null ? new SlotGate(group, db, SlotGateState.decode(stored), gates, false)
                : new SlotGate(group, db, SlotGateState.seeded(new BitSet(KeySlot.SLOTS)), gates, true);
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
        return state.accepts(slot);
    }

    /** The slots it accepts now (a copy). */
    BitSet accepted() {
        return state.accepted();
    }

    /** The id of the last change this group applied here (0: none). */
    long lastChange() {
        return state.lastChange();
    }

    /** Everything the gate knows now. */
    SlotGateState state() {
        return state;
    }

    /**
     * Whether this member, never having held the group, was sent log entries instead of a snapshot: a leader
     * whose log still starts at the group's first entry replays it from there. Every such entry was refused,
     * so the member holds nothing of the group; it must be started afresh ({@link ReplicaMover}).
     */
    boolean sentLogBeforeSnapshot() {
        return sentLogBeforeSnapshot;
    }

    /** Whether this member has held the group's data: it installed a snapshot, or opened as a member. */
    boolean held() {
        return !neverHeld;
    }

    @Override
    public List<ReplicatedBatch.Op> admit(long index, List<ReplicatedBatch.Op> ops) {
        if (neverHeld) {
            // Not even a control entry: an accept applied here would let the entries after it write records
            // from before the group's fences into slots other groups own on this node.
            sentLogBeforeSnapshot = true;
            return null;
        }
        if (ops.size() == 1 && Arrays.equals(ops.getFirst().key(), controlKey) && ops.getFirst().value() != null) {
            return control(ops.getFirst());
        }
        SlotGateState now = state;
        for (ReplicatedBatch.Op op : ops) {
            int slot = BatchRouting.slotOf(op.key());
            if (slot >= 0 && !now.accepts(slot)) {
                return null;
            }
        }
        return ops;
    }

    private List<ReplicatedBatch.Op> control(ReplicatedBatch.Op op) {
        SlotGateState now = state;
        SlotGateState next;
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(op.value()))) {
            byte kind = in.readByte();
            long change = in.readLong();
            if (kind == STATE || change < now.lastChange()) {
                return null;
            }
            BitSet slots = TopologyState.readRanges(in);
            if (kind == FENCE) {
                next = now.fence(change, slots);
            } else {
                List<Integer> sources = new ArrayList<>();
                for (int i = in.readUnsignedShort(); i > 0; i--) {
                    int source = in.readUnsignedShort();
                    sources.add(source);
                    if (source != group) {
                        gates.awaitChange(source, change);
                    }
                }
                next = now.accept(change, slots, sources);
            }
        } catch (IOException e) {
            return null;
        }
        state = next;
        gates.changed();
        return List.of(new ReplicatedBatch.Op(op.family(), op.key(), next.encode()));
    }

    // ---- snapshots (GroupShare)

    @Override
    public Saved save() {
        SlotGateState now = state;
        List<Db.Range> ranges = new ArrayList<>(GroupKeyRanges.of(now.accepted()));
        now.fenced().values().forEach(slots -> ranges.addAll(GroupKeyRanges.of(slots)));
        ranges.sort((a, b) -> Arrays.compareUnsigned(a.start(), b.start()));
        return new Saved(ranges, now.encode());
    }

    @Override
    public List<InstallStep> install(Saved saved) {
        SlotGateState local = state;
        SlotGateState snapshot = SlotGateState.decode(saved.state());
        List<Db.Range> missedFences = new ArrayList<>();
        if (!neverHeld) {
            snapshot.fenced().tailMap(local.lastChange(), false).values()
                    .forEach(slots -> missedFences.addAll(GroupKeyRanges.of(slots)));
        }
        // Stored only when the step replaced ranges: otherwise a crash before the second step loses nothing
        // the next attempt would not redo alike, and the engine, run without its log, is not flushed for it.
        InstallStep fences = new InstallStep(() -> { }, missedFences, missedFences.isEmpty()
                ? () -> take(local.fencedAsOf(snapshot)) : () -> adopt(local.fencedAsOf(snapshot)));
        InstallStep accepts = new InstallStep(() -> {
            snapshot.taken().forEach((change, taken) -> {
                for (int source : taken.sources()) {
                    if (source != group) {
                        gates.awaitChange(source, change);
                    }
                }
            });
        }, GroupKeyRanges.of(snapshot.accepted()), () -> adopt(snapshot));
        return List.of(fences, accepts);
    }

    /** Takes {@code next} as this gate's state, stored durably first, and tells the groups waiting on it. */
    private void adopt(SlotGateState next) {
        db.put(WriteOptions.DEFAULT, controlKey, next.encode());
        db.syncWal(); // a flush when the engine runs without its log, as under Raft
        neverHeld = false;
        take(next);
    }

    /** Takes {@code next} as this gate's state (in memory) and tells the groups waiting on it. */
    private void take(SlotGateState next) {
        state = next;
        gates.changed();
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
        return "SlotGate[" + ClusterTopology.groupName(group) + ", " + state + "]";
    }
}

package io.varve.server.cluster;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What a {@link SlotGate} knows after the control entries its group applied, immutable: the slots the group
 * accepts, the id of the last change it applied, the slots it handed away, each with the id of the change that
 * fenced it last, and the slots it took over from other groups, each with the change and the groups it took
 * them from. Stored under the gate's control key and carried in the group's snapshots, so a member that
 * installs a snapshot knows as much as one that applied the log (docs/cluster.md, "Snapshots per group").
 *
 * <pre>
 *   u8 STATE | u64 last change | ranges accepted
 *            | u16 count { u64 change | ranges fenced by it }
 *            | u16 count { u64 change | u16 count { u16 source group } | ranges taken by it }
 * </pre>
 * (ranges as in {@link TopologyState}; a state that ends after the accepted ranges has handed away and taken
 * over nothing). Fenced slots are never accepted; taken slots always are; no slot is in two fenced entries or
 * two taken ones: a slot lies where the newest change naming it put it.
 */
final class SlotGateState {

    private final BitSet accepted;
    private final long lastChange;
    private final NavigableMap<Long, BitSet> fenced;
    private final NavigableMap<Long, Taken> taken;

    /** Slots taken over by one accept entry, from {@code sources}. */
    record Taken(List<Integer> sources, BitSet slots) {
        Taken {
            sources = List.copyOf(sources);
        }
    }

    private SlotGateState(BitSet accepted, long lastChange, NavigableMap<Long, BitSet> fenced,
                          NavigableMap<Long, Taken> taken) {
        this.accepted = accepted;
        this.lastChange = lastChange;
        this.fenced = Collections.unmodifiableNavigableMap(fenced);
        this.taken = Collections.unmodifiableNavigableMap(taken);
    }

    /** A group that applied no change yet, accepting {@code seed}. */
    static SlotGateState seeded(BitSet seed) {
        return new SlotGateState((BitSet) seed.clone(), 0, new TreeMap<>(), new TreeMap<>());
    }

    boolean accepts(int slot) {
        return accepted.get(slot);
    }

    /** A copy of the accepted slots. */
    BitSet accepted() {
        return (BitSet) accepted.clone();
    }

    long lastChange() {
        return lastChange;
    }

    /** The slots handed away, by the change that fenced them (copies). */
    NavigableMap<Long, BitSet> fenced() {
        NavigableMap<Long, BitSet> copy = new TreeMap<>();
        fenced.forEach((change, slots) -> copy.put(change, (BitSet) slots.clone()));
        return copy;
    }

    /** The slots taken over, by the accept change that took them (the slot sets are copies). */
    NavigableMap<Long, Taken> taken() {
        NavigableMap<Long, Taken> copy = new TreeMap<>();
        taken.forEach((change, t) -> copy.put(change, new Taken(t.sources(), (BitSet) t.slots().clone())));
        return copy;
    }

    /** After fence {@code change} of {@code slots}: those it accepted are handed away at {@code change}. */
    SlotGateState fence(long change, BitSet slots) {
        BitSet handed = (BitSet) slots.clone();
        handed.and(accepted);
        BitSet next = (BitSet) accepted.clone();
        next.andNot(slots);
        NavigableMap<Long, BitSet> nextFenced = fencedWithout(handed);
        if (!handed.isEmpty()) {
            nextFenced.merge(change, handed, (a, b) -> {
                BitSet union = (BitSet) a.clone();
                union.or(b);
                return union;
            });
        }
        return new SlotGateState(next, change, nextFenced, takenWithout(slots));
    }

    /**
     * After accept {@code change} of {@code slots} from {@code sources}: accepted, taken at {@code change}, and
     * no longer counted as handed away.
     */
    SlotGateState accept(long change, BitSet slots, List<Integer> sources) {
        BitSet next = (BitSet) accepted.clone();
        next.or(slots);
        NavigableMap<Long, Taken> nextTaken = takenWithout(slots);
        if (!slots.isEmpty()) {
            nextTaken.put(change, new Taken(sources, (BitSet) slots.clone()));
        }
        return new SlotGateState(next, change, fencedWithout(slots), nextTaken);
    }

    /**
     * This state with {@code accepted} narrowed to {@code other}'s and {@code other}'s change and handed-away
     * slots: what a member knows once it has applied every fence up to {@code other} but no accept it lacks.
     */
    SlotGateState fencedAsOf(SlotGateState other) {
        BitSet next = (BitSet) accepted.clone();
        next.and(other.accepted);
        NavigableMap<Long, Taken> kept = new TreeMap<>();
        taken.forEach((change, t) -> {
            BitSet left = (BitSet) t.slots().clone();
            left.and(next);
            if (!left.isEmpty()) {
                kept.put(change, new Taken(t.sources(), left));
            }
        });
        return new SlotGateState(next, other.lastChange, other.fenced(), kept);
    }

    private NavigableMap<Long, Taken> takenWithout(BitSet slots) {
        NavigableMap<Long, Taken> next = new TreeMap<>();
        taken.forEach((change, t) -> {
            BitSet left = (BitSet) t.slots().clone();
            left.andNot(slots);
            if (!left.isEmpty()) {
                next.put(change, new Taken(t.sources(), left));
            }
        });
        return next;
    }

    private NavigableMap<Long, BitSet> fencedWithout(BitSet slots) {
        NavigableMap<Long, BitSet> next = new TreeMap<>();
        fenced.forEach((change, set) -> {
            BitSet left = (BitSet) set.clone();
            left.andNot(slots);
            if (!left.isEmpty()) {
                next.put(change, left);
            }
        });
        return next;
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(SlotGate.STATE);
            out.writeLong(lastChange);
            TopologyState.writeRanges(out, accepted);
            out.writeShort(fenced.size());
            for (Map.Entry<Long, BitSet> e : fenced.entrySet()) {
                out.writeLong(e.getKey());
                TopologyState.writeRanges(out, e.getValue());
            }
            out.writeShort(taken.size());
            for (Map.Entry<Long, Taken> e : taken.entrySet()) {
                out.writeLong(e.getKey());
                out.writeShort(e.getValue().sources().size());
                for (int source : e.getValue().sources()) {
                    out.writeShort(source);
                }
                TopologyState.writeRanges(out, e.getValue().slots());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static SlotGateState decode(byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            if (in.readByte() != SlotGate.STATE) {
                throw new IOException("not a slot gate's state");
            }
            long last = in.readLong();
            BitSet accepted = TopologyState.readRanges(in);
            NavigableMap<Long, BitSet> fenced = new TreeMap<>();
            NavigableMap<Long, Taken> taken = new TreeMap<>();
            if (in.available() > 0) {
                for (int i = in.readUnsignedShort(); i > 0; i--) {
                    long change = in.readLong();
                    fenced.put(change, TopologyState.readRanges(in));
                }
                for (int i = in.readUnsignedShort(); i > 0; i--) {
                    long change = in.readLong();
                    List<Integer> sources = new ArrayList<>();
                    for (int j = in.readUnsignedShort(); j > 0; j--) {
                        sources.add(in.readUnsignedShort());
                    }
                    taken.put(change, new Taken(sources, TopologyState.readRanges(in)));
                }
            }
            return new SlotGateState(accepted, last, fenced, taken);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotGateState s && s.lastChange == lastChange && s.accepted.equals(accepted)
                && s.fenced.equals(fenced) && s.taken.equals(taken);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(lastChange) * 31 + accepted.hashCode();
    }

    @Override
    public String toString() {
        return "change " + lastChange + ", " + accepted.cardinality() + " slots accepted, "
                + fenced.values().stream().mapToInt(BitSet::cardinality).sum() + " handed away";
    }
}

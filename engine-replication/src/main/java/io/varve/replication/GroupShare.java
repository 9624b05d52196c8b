package io.varve.replication;

import io.varve.core.Db;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a group sharing its database calls its own, for snapshots: the key ranges of the default family a
 * snapshot carries and a small state of the group's that travels with them (docs/replication.md, "Snapshots of
 * a group sharing its database"). The state is whatever a member would otherwise rebuild by applying the log
 * the snapshot replaces, such as an {@link ApplyGate}'s record of which keys the group accepts.
 *
 * <p>Every method runs on the group's state-machine thread, so no entry of the group applies meanwhile and
 * what {@link #save} reports is the group's state as of its applied index.
 */
public interface GroupShare {

    /**
     * A snapshot's share: the ranges {@code [start, limit)} it carries (bounded, ascending, disjoint) and the
     * group's state at the same index.
     */
    record Saved(List<Db.Range> ranges, byte[] state) {
        public Saved {
            ranges = List.copyOf(ranges);
            state = state.clone();
        }

        @Override
        public byte[] state() {
            return state.clone();
        }
    }

    /** The ranges and state a snapshot taken now carries. */
    Saved save();

    /**
     * How to install a snapshot saved as {@code saved}, asked before anything of it has changed the database:
     * the steps, in order. Each step runs {@link InstallStep#before}, then replaces its ranges (one atomic batch
     * of range deletions, then one ingestion of their tables from the snapshot), then runs
     * {@link InstallStep#after}. Every range a step names is one of {@code saved.ranges()}; a range no step names
     * is left as it is. The last step's {@code after} adopts the snapshot's state as if the log up to it had
     * applied, durably before returning (the snapshot's index is stored next). A step's actions may wait for
     * other groups of the process, never for this one.
     */
    List<InstallStep> install(Saved saved);

    /** One step of an install: an action, the ranges replaced, an action. */
    record InstallStep(Runnable before, List<Db.Range> ranges, Runnable after) {
        public InstallStep {
            ranges = List.copyOf(ranges);
        }
    }

    /** A share of the ranges {@code ranges} gives at each snapshot, with no state: an install replaces them all in one step. */
    static GroupShare ofRanges(Supplier<List<Db.Range>> ranges) {
        return new GroupShare() {
            @Override
            public Saved save() {
                return new Saved(ranges.get(), new byte[0]);
            }

            @Override
            public List<InstallStep> install(Saved saved) {
                return List.of(new InstallStep(() -> { }, saved.ranges(), () -> { }));
            }
        };
    }
}

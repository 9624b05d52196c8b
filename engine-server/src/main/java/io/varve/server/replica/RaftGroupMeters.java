package io.varve.server.replica;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.varve.replication.ReplicatedDb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Meters per Raft group this node holds a member of, tagged {@code group=<jraft group id>} ({@code keyspace}
 * in replicated mode; {@code meta} and {@code slots-<g>} in cluster mode): term, commit, applied and last log
 * index, apply lag, leadership, and the member's counts of leader changes, snapshots installed and entries
 * applied (docs/server.md, "Raft group meters").
 *
 * <p>The metrics endpoint calls {@link #refresh} on its one thread before every scrape. A refresh asks the node
 * which members it holds now, reads each member's status once, and keeps that sample for the meters to
 * report: the meters never call into a member, so a scrape cannot throw nor read one closed under it, and the
 * values of one group come from one reading (the apply lag is that reading's commit minus its applied index).
 * A member found closed after its reading is left out, as if retired before the refresh. Groups the node
 * opened since the last refresh get meters; groups it no longer holds (retired by a replica move) have theirs
 * removed from the registry, so the label values stay the groups this node holds. A member reopened under
 * the same name starts its counts at zero, which Prometheus reads as a counter reset.
 */
public final class RaftGroupMeters {

    private static final System.Logger LOG = System.getLogger(RaftGroupMeters.class.getName());

    private final MeterRegistry registry;
    private final Supplier<List<ReplicatedDb>> held;
    /** Per group name: its newest sample and the meters reading it. */
    private final Map<String, GroupMeters> groups = new HashMap<>();

    public RaftGroupMeters(MeterRegistry registry, Supplier<List<ReplicatedDb>> held) {
        this.registry = registry;
        this.held = held;
    }

    /** Samples every member held now, registers meters for new groups and removes those of groups gone. */
    public synchronized void refresh() {
        Set<String> seen = new HashSet<>();
        for (ReplicatedDb member : held.get()) {
            Sample sample;
            try {
                sample = Sample.of(member);
            } catch (RuntimeException e) { // a member closing under the read: left out as a closed one is
                LOG.log(System.Logger.Level.DEBUG, "cannot read the status of " + member + " for /metrics", e);
                continue;
            }
            if (!member.isOpen()) {
                continue;
            }
            seen.add(member.group());
            GroupMeters meters = groups.get(member.group());
            if (meters == null) {
                groups.put(member.group(), register(member.group(), sample));
            } else {
                meters.sample = sample;
            }
        }
        groups.entrySet().removeIf(entry -> {
            if (seen.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().meters.forEach(registry::remove);
            return true;
        });
    }

    private GroupMeters register(String group, Sample first) {
        GroupMeters g = new GroupMeters(first);
        g.gauge(registry, group, "varve.raft.term", "The newest term this member has seen a leader in",
                s -> s.term);
        g.gauge(registry, group, "varve.raft.commit.index", "The highest log index this member knows committed",
                s -> s.commitIndex);
        g.gauge(registry, group, "varve.raft.applied.index", "The highest log index applied to this member's"
                + " database", s -> s.appliedIndex);
        g.gauge(registry, group, "varve.raft.apply.lag", "Committed entries this member has not applied yet",
                s -> s.commitIndex - s.appliedIndex);
        g.gauge(registry, group, "varve.raft.last.log.index", "The last index in this member's Raft log",
                s -> s.lastLogIndex);
        g.gauge(registry, group, "varve.raft.leader", "1 while this member leads its group, else 0",
                s -> s.leader ? 1 : 0);
        g.counter(registry, group, "varve.raft.leader.changes", "Leaders this member has taken up (itself or"
                + " another) since it opened", s -> s.leaderChanges);
        g.counter(registry, group, "varve.raft.snapshots.installed", "Snapshots this member has installed since"
                + " it opened", s -> s.snapshotsInstalled);
        g.counter(registry, group, "varve.raft.entries.applied", "Log entries this member has written to its"
                + " database since it opened", s -> s.entriesApplied);
        return g;
    }

    /** One reading of a member, all of its fields taken together. */
    private record Sample(long term, long commitIndex, long appliedIndex, long lastLogIndex, boolean leader,
                          long leaderChanges, long snapshotsInstalled, long entriesApplied) {
        static Sample of(ReplicatedDb member) {
            ReplicatedDb.MemberStatus status = member.status();
            return new Sample(status.term(), status.commitIndex(), status.appliedIndex(), status.lastLogIndex(),
                    "leader".equals(status.role()), member.leaderChanges(), member.snapshotsInstalled(),
                    member.entriesApplied());
        }
    }

    /**
     * A group's meters; they read {@link #sample}, which only {@link #refresh} replaces. Micrometer holds the
     * object a meter reads weakly: {@link #groups} holds it for as long as its meters are registered.
     */
    private static final class GroupMeters {
        private volatile Sample sample;
        private final List<Meter> meters = new ArrayList<>();

        GroupMeters(Sample first) {
            this.sample = first;
        }

        void gauge(MeterRegistry registry, String group, String name, String description,
                   ToDoubleFunction<Sample> value) {
            meters.add(Gauge.builder(name, this, m -> value.applyAsDouble(m.sample))
                    .tag("group", group).description(description).register(registry));
        }

        void counter(MeterRegistry registry, String group, String name, String description,
                     ToDoubleFunction<Sample> value) {
            meters.add(FunctionCounter.builder(name, this, m -> value.applyAsDouble(m.sample))
                    .tag("group", group).description(description).register(registry));
        }
    }
}

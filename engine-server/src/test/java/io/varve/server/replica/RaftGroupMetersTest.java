package io.varve.server.replica;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.varve.replication.ReplicatedDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A group's meters come with the member and go with it: registered at the first refresh that finds it held,
 * removed at the first that does not, or that finds it closed; a meter never reads a member itself.
 */
class RaftGroupMetersTest {

    @Test
    void metersFollowTheMembersHeld(@TempDir Path dir) throws Exception {
        try (OneMemberGroup group = OneMemberGroup.start(dir)) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            List<ReplicatedDb> held = new CopyOnWriteArrayList<>();
            RaftGroupMeters meters = new RaftGroupMeters(registry, () -> held);

            meters.refresh();
            assertEquals(Set.of(), names(registry), "no member, no meters");

            held.add(group.replicated);
            meters.refresh();
            assertEquals(Set.of("varve.raft.term", "varve.raft.commit.index", "varve.raft.applied.index",
                    "varve.raft.apply.lag", "varve.raft.last.log.index", "varve.raft.leader",
                    "varve.raft.leader.changes", "varve.raft.snapshots.installed", "varve.raft.entries.applied"),
                    names(registry));
            assertEquals(1.0, registry.get("varve.raft.leader").tag("group", RaftReplica.GROUP).gauge().value());
            assertTrue(registry.get("varve.raft.term").tag("group", RaftReplica.GROUP).gauge().value() >= 1);
            assertEquals(1.0, registry.get("varve.raft.leader.changes").functionCounter().count(),
                    "one election seen, its own");

            held.clear();
            meters.refresh();
            assertEquals(Set.of(), names(registry), "a member no longer held loses its meters");

            held.add(group.replicated);
            meters.refresh();
            assertEquals(9, registry.getMeters().size(), "held again, metered again");
            group.replicated.close();
            meters.refresh();
            assertEquals(Set.of(), names(registry), "a closed member is left out though still listed");
        }
    }

    private static Set<String> names(SimpleMeterRegistry registry) {
        return registry.getMeters().stream().map(Meter::getId).map(Meter.Id::getName).collect(Collectors.toSet());
    }
}

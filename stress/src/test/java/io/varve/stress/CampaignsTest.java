package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.cluster.ClusterFault;
import io.varve.stress.cluster.ClusterKillCampaign;
import io.varve.stress.engine.EngineCorruptionCampaign;
import io.varve.stress.enginekill.EngineIoErrorCampaign;
import io.varve.stress.enginekill.EngineKillCampaign;
import io.varve.stress.lifecycle.LifecycleCampaign;
import io.varve.stress.raftlog.RaftLogCorruptionCampaign;
import io.varve.stress.raftlog.RaftLogIoErrorCampaign;
import io.varve.stress.raftlog.RaftLogKillCampaign;
import io.varve.stress.server.HostileClientsCampaign;
import io.varve.stress.server.ServerKillCampaign;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short CI versions of the campaigns (bin/stress runs the long ones): a few kill cycles, a few thousand
 * mutations. Each must pass; known engine-core defects are reported in the verdict, not failed on. The
 * durations are generous budgets, not assertions: the cycle counts end the runs.
 */
class CampaignsTest {

    @TempDir
    Path work;

    private Settings settings(long cycles, long seed) {
        return new Settings(cycles, Duration.ofMinutes(10), seed, work, Path.of("target", "reproducers"), System.out);
    }

    @Test
    void raftLogKillNineLosesNoAcknowledgedSyncedBatch() throws Exception {
        CampaignReport report = new RaftLogKillCampaign(Duration.ofSeconds(3)).run(settings(5, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(5, report.cycles(), report.verdict());
    }

    @Test
    void raftLogCorruptionIsReportedOrToleratedAsPromised() throws Exception {
        CampaignReport report = new RaftLogCorruptionCampaign().run(settings(1000, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(1000, report.cycles());
        // The mutations reached both outcomes: some damage is refused, some (stale or dead bytes) harmless.
        assertTrue(report.outcomes().containsKey("refused"), report.verdict());
        assertTrue(report.outcomes().containsKey("intact"), report.verdict());
    }

    @Test
    void engineCorruptionIsReportedOrToleratedAsPromised() throws Exception {
        CampaignReport report = new EngineCorruptionCampaign().run(settings(300, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(300, report.cycles());
        // The mutations reached both outcomes: an engine that refused every damaged file would not pass.
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("-refused")
                || o.endsWith("-detected-at-read")), report.verdict());
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("-intact")
                || o.endsWith("-prefix")), report.verdict());
    }

    @Test
    void engineKillNineLosesNoAcknowledgedWrite() throws Exception {
        CampaignReport report = new EngineKillCampaign(Duration.ofSeconds(3)).run(settings(4, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(4, report.cycles(), report.verdict());
    }

    @Test
    void ioErrorsAtEveryPointReachTheCallerAndACrashAfterwardsRecoversADurablePrefix() throws Exception {
        CampaignReport report = new EngineIoErrorCampaign(Duration.ofMillis(400)).run(settings(40, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(40, report.cycles(), report.verdict());
        // The failures reached the workload's callers, not only cleanup that may fail silently.
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("caller-saw-it")), report.verdict());
    }

    @Test
    void raftLogIoErrorsReachTheCallerStopTheLogAndACrashAfterwardsRecoversASyncedPrefix() throws Exception {
        CampaignReport report = new RaftLogIoErrorCampaign(600).run(settings(40, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(40, report.cycles(), report.verdict());
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("caller-saw-it")), report.verdict());
    }

    @Test
    void serverKillNineUnderAppendfsyncAlwaysLosesNoAcknowledgedWrite() throws Exception {
        CampaignReport report = new ServerKillCampaign(Duration.ofSeconds(2)).run(settings(2, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(2, report.cycles(), report.verdict());
    }

    @Test
    void closeRacingEveryOperationHangsNothingLeaksNothingAndLosesNothing() throws Exception {
        CampaignReport report = new LifecycleCampaign().run(settings(25, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(25, report.cycles(), report.verdict());
    }

    @Test
    void hostileClientsNeitherStarveAWellBehavedClientNorGrowTheHeap() throws Exception {
        CampaignReport report = new HostileClientsCampaign(Duration.ofMillis(1500)).run(settings(8, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(8, report.cycles(), report.verdict()); // every kind once, the blocking clients last
    }

    @Test
    void clusterKillNineOrPartitionOfANodeLosesNoAcknowledgedWriteAndLeavesTheReplicasAgreeing() throws Exception {
        CampaignReport report = new ClusterKillCampaign(Duration.ofSeconds(2),
                List.of(ClusterFault.KILL, ClusterFault.PARTITION)).run(settings(2, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(2, report.cycles(), report.verdict());
        assertTrue(report.verdict().contains("killed-a-node") && report.verdict().contains("partitioned-a-node"),
                report.verdict());
    }
}

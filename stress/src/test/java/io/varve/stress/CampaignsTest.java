package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.engine.EngineCorruptionCampaign;
import io.varve.stress.enginekill.EngineIoErrorCampaign;
import io.varve.stress.enginekill.EngineKillCampaign;
import io.varve.stress.lifecycle.LifecycleCampaign;
import io.varve.stress.raftlog.RaftLogCorruptionCampaign;
import io.varve.stress.raftlog.RaftLogIoErrorCampaign;
import io.varve.stress.raftlog.RaftLogKillCampaign;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short CI versions of the campaigns (bin/stress runs the long ones): a few kill cycles, a few thousand
 * mutations. Each must pass; known engine-core defects are reported in the verdict, not failed on. The
 * durations are generous budgets, not assertions: the cycle counts end the runs.
 *
 * <p>This class runs the engine-core and raft-log campaigns; {@link ServerCampaignsTest} and
 * {@link ClusterCampaignTest} run the server's and the cluster's. They are three classes so that the
 * module's surefire forks can run them side by side (a fork runs one class at a time).
 */
class CampaignsTest {

    @TempDir
    Path work;

    /** A run of {@code cycles} cycles from {@code seed}, with ten minutes as a budget that only a hang meets. */
    static Settings settings(Path work, long cycles, long seed) {
        return new Settings(cycles, Duration.ofMinutes(10), seed, work, Path.of("target", "reproducers"), System.out);
    }

    @Test
    void raftLogKillNineLosesNoAcknowledgedSyncedBatch() throws Exception {
        CampaignReport report = new RaftLogKillCampaign(Duration.ofSeconds(3)).run(settings(work, 5, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(5, report.cycles(), report.verdict());
    }

    @Test
    void raftLogCorruptionIsReportedOrToleratedAsPromised() throws Exception {
        CampaignReport report = new RaftLogCorruptionCampaign().run(settings(work, 1000, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(1000, report.cycles());
        // The mutations reached both outcomes: some damage is refused, some (stale or dead bytes) harmless.
        assertTrue(report.outcomes().containsKey("refused"), report.verdict());
        assertTrue(report.outcomes().containsKey("intact"), report.verdict());
    }

    @Test
    void engineCorruptionIsReportedOrToleratedAsPromised() throws Exception {
        CampaignReport report = new EngineCorruptionCampaign().run(settings(work, 300, 19));
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
        CampaignReport report = new EngineKillCampaign(Duration.ofSeconds(3)).run(settings(work, 4, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(4, report.cycles(), report.verdict());
    }

    @Test
    void ioErrorsAtEveryPointReachTheCallerAndACrashAfterwardsRecoversADurablePrefix() throws Exception {
        CampaignReport report = new EngineIoErrorCampaign(Duration.ofMillis(400)).run(settings(work, 40, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(40, report.cycles(), report.verdict());
        // The failures reached the workload's callers, not only cleanup that may fail silently.
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("caller-saw-it")), report.verdict());
    }

    @Test
    void raftLogIoErrorsReachTheCallerStopTheLogAndACrashAfterwardsRecoversASyncedPrefix() throws Exception {
        CampaignReport report = new RaftLogIoErrorCampaign(600).run(settings(work, 40, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(40, report.cycles(), report.verdict());
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("caller-saw-it")), report.verdict());
    }

    @Test
    void closeRacingEveryOperationHangsNothingLeaksNothingAndLosesNothing() throws Exception {
        CampaignReport report = new LifecycleCampaign().run(settings(work, 25, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(25, report.cycles(), report.verdict());
    }

}

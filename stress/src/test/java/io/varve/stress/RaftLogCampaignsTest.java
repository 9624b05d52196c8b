package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.raftlog.RaftLogCorruptionCampaign;
import io.varve.stress.raftlog.RaftLogIoErrorCampaign;
import io.varve.stress.raftlog.RaftLogKillCampaign;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short CI versions of the raft log's campaigns ({@link CiCampaigns}): kill -9 of a writer, mutated files,
 * and I/O errors at every point.
 */
class RaftLogCampaignsTest {

    @TempDir
    Path work;

    @Test
    void raftLogKillNineLosesNoAcknowledgedSyncedBatch() throws Exception {
        CampaignReport report = new RaftLogKillCampaign(Duration.ofSeconds(3)).run(CiCampaigns.settings(work, 5, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(5, report.cycles(), report.verdict());
    }

    @Test
    void raftLogCorruptionIsReportedOrToleratedAsPromised() throws Exception {
        CampaignReport report = new RaftLogCorruptionCampaign().run(CiCampaigns.settings(work, 1000, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(1000, report.cycles());
        // The mutations reached both outcomes: some damage is refused, some (stale or dead bytes) harmless.
        assertTrue(report.outcomes().containsKey("refused"), report.verdict());
        assertTrue(report.outcomes().containsKey("intact"), report.verdict());
    }

    @Test
    void raftLogIoErrorsReachTheCallerStopTheLogAndACrashAfterwardsRecoversASyncedPrefix() throws Exception {
        CampaignReport report = new RaftLogIoErrorCampaign(600).run(CiCampaigns.settings(work, 40, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(40, report.cycles(), report.verdict());
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("caller-saw-it")), report.verdict());
    }
}

package io.varve.stress.raftlog;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.CampaignReport;
import io.varve.stress.PlantedChildren;
import io.varve.stress.Settings;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The raft-log kill campaign fails for the reasons it is named when its child misbehaves. */
class RaftLogKillVerdictTest {

    @TempDir
    Path work;

    private Settings settings(long cycles) {
        return new Settings(cycles, Duration.ofMinutes(5), 19, work, work.resolve("reproducers"), null);
    }

    @Test
    void aChildThatAcknowledgesNothingFailsAsNoProgress() throws Exception {
        CampaignReport report = new RaftLogKillCampaign(Duration.ofMillis(200), PlantedChildren.Stalled.class,
                Duration.ofSeconds(5)).run(settings(8));
        assertFalse(report.passed(), report.verdict());
        assertTrue(report.failures().getFirst().what().startsWith("no progress"), report.verdict());
    }

    @Test
    void aThreadFailureTheChildReportsFailsTheCycleWithItsText() throws Exception {
        CampaignReport report = new RaftLogKillCampaign(Duration.ofSeconds(30), PlantedChildren.Failing.class,
                Duration.ofSeconds(5)).run(settings(8));
        assertFalse(report.passed(), report.verdict());
        assertTrue(report.failures().getFirst().what().contains("planted failure"), report.verdict());
    }
}

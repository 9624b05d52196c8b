package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.engine.EngineCorruptionCampaign;
import io.varve.stress.enginekill.EngineIoErrorCampaign;
import io.varve.stress.enginekill.EngineKillCampaign;
import io.varve.stress.lifecycle.LifecycleCampaign;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short CI versions of engine-core's campaigns ({@link CiCampaigns}): mutated files, kill -9 of a writer,
 * I/O errors at every point, and close racing every operation.
 */
class EngineCampaignsTest {

    @TempDir
    Path work;

    @Test
    void engineCorruptionIsReportedOrToleratedAsPromised() throws Exception {
        CampaignReport report = new EngineCorruptionCampaign().run(CiCampaigns.settings(work, 300, 19));
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
        CampaignReport report = new EngineKillCampaign(Duration.ofSeconds(3)).run(CiCampaigns.settings(work, 4, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(4, report.cycles(), report.verdict());
    }

    @Test
    void ioErrorsAtEveryPointReachTheCallerAndACrashAfterwardsRecoversADurablePrefix() throws Exception {
        CampaignReport report = new EngineIoErrorCampaign(Duration.ofMillis(400))
                .run(CiCampaigns.settings(work, 40, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(40, report.cycles(), report.verdict());
        // The failures reached the workload's callers, not only cleanup that may fail silently.
        assertTrue(report.outcomes().keySet().stream().anyMatch(o -> o.endsWith("caller-saw-it")), report.verdict());
    }

    @Test
    void closeRacingEveryOperationHangsNothingLeaksNothingAndLosesNothing() throws Exception {
        CampaignReport report = new LifecycleCampaign().run(CiCampaigns.settings(work, 25, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(25, report.cycles(), report.verdict());
    }
}

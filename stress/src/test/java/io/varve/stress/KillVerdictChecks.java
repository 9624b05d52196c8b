package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill campaign fails for the reasons it is named when its child misbehaves ({@link PlantedChildren}).
 * Each kill campaign's test extends this with how to build the campaign around another child main.
 */
public abstract class KillVerdictChecks {

    @TempDir
    Path work;

    /** The campaign, killing within {@code maxRun}, running {@code child}, failing "no progress" after 5 s. */
    protected abstract Campaign campaign(Duration maxRun, Class<?> child, Duration progressLimit);

    private CampaignReport run(Duration maxRun, Class<?> child) throws Exception {
        Settings settings = new Settings(8, Duration.ofMinutes(5), 19, work, work.resolve("reproducers"), null);
        return campaign(maxRun, child, Duration.ofSeconds(5)).run(settings);
    }

    @Test
    void aChildThatAcknowledgesNothingFailsAsNoProgress() throws Exception {
        CampaignReport report = run(Duration.ofMillis(200), PlantedChildren.Stalled.class);
        assertFalse(report.passed(), report.verdict());
        assertTrue(report.failures().getFirst().what().startsWith("no progress"), report.verdict());
    }

    @Test
    void aThreadFailureTheChildReportsFailsTheCycleWithItsText() throws Exception {
        CampaignReport report = run(Duration.ofSeconds(30), PlantedChildren.Failing.class);
        assertFalse(report.passed(), report.verdict());
        assertTrue(report.failures().getFirst().what().contains("planted failure"), report.verdict());
    }
}

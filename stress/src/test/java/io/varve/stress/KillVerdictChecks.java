package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    private CampaignReport run(Duration maxRun, Class<?> child, Path replay) throws Exception {
        Settings settings = new Settings(8, Duration.ofMinutes(5), 19, work, work.resolve("reproducers"), null,
                replay);
        return campaign(maxRun, child, Duration.ofSeconds(5)).run(settings);
    }

    /** Replayed from a kill schedule, whose kill the failure's reproducer records again with its replay command. */
    @Test
    void aChildThatAcknowledgesNothingFailsAsNoProgress() throws Exception {
        Path replay = Files.write(work.resolve("replayed-schedule.txt"), List.of("# replayed", "1 4242 123 open"));
        CampaignReport report = run(Duration.ofMillis(200), PlantedChildren.Stalled.class, replay);
        assertFalse(report.passed(), report.verdict());
        Failure failure = report.failures().getFirst();
        assertTrue(failure.what().startsWith("no progress"), report.verdict());
        Path recorded = failure.reproducer().resolve(KillSchedule.FILE_NAME);
        assertEquals(List.of("1 4242 123 open"), Files.readAllLines(recorded).stream()
                .filter(l -> !l.startsWith("#")).toList(), "the campaign killed as the schedule said");
        assertTrue(Files.readString(failure.reproducer().resolve("failure.txt"))
                .contains("--seed 19 --cycles 1 --replay " + recorded), "the replay command names the schedule");
    }

    @Test
    void aThreadFailureTheChildReportsFailsTheCycleWithItsText() throws Exception {
        CampaignReport report = run(Duration.ofSeconds(30), PlantedChildren.Failing.class, null);
        assertFalse(report.passed(), report.verdict());
        assertTrue(report.failures().getFirst().what().contains("planted failure"), report.verdict());
    }
}

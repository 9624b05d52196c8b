package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.server.HostileClientsCampaign;
import io.varve.stress.server.ServerKillCampaign;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short CI versions of the server's campaigns ({@link CiCampaigns}): kill -9 of a server under
 * {@code appendfsync always}, and one attack of each hostile-client kind.
 */
class ServerCampaignsTest {

    @TempDir
    Path work;

    @Test
    void serverKillNineUnderAppendfsyncAlwaysLosesNoAcknowledgedWrite() throws Exception {
        CampaignReport report = new ServerKillCampaign(Duration.ofSeconds(2))
                .run(CiCampaigns.settings(work, 2, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(2, report.cycles(), report.verdict());
    }

    @Test
    void hostileClientsNeitherStarveAWellBehavedClientNorGrowTheHeap() throws Exception {
        CampaignReport report = new HostileClientsCampaign(Duration.ofMillis(1500))
                .run(CiCampaigns.settings(work, 8, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(8, report.cycles(), report.verdict()); // every kind once, the blocking clients last
    }
}

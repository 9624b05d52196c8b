package io.varve.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.stress.cluster.ClusterFault;
import io.varve.stress.cluster.ClusterKillCampaign;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short CI version of the cluster campaign ({@link CiCampaigns}): one kill and one partition of
 * a node leading groups in a three-process cluster. Its own class because it is the longest campaign.
 */
class ClusterCampaignTest {

    @TempDir
    Path work;

    @Test
    void clusterKillNineOrPartitionOfANodeLosesNoAcknowledgedWriteAndLeavesTheReplicasAgreeing() throws Exception {
        CampaignReport report = new ClusterKillCampaign(Duration.ofSeconds(2),
                List.of(ClusterFault.KILL, ClusterFault.PARTITION)).run(CiCampaigns.settings(work, 2, 19));
        System.out.println(report.verdict());
        assertTrue(report.passed(), report.verdict());
        assertEquals(2, report.cycles(), report.verdict());
        assertTrue(report.verdict().contains("killed-a-node") && report.verdict().contains("partitioned-a-node"),
                report.verdict());
    }
}

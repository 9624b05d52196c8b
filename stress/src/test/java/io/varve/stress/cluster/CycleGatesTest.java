package io.varve.stress.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cluster campaign cycle judges failover and bystanders only when the killed node leaves groups to the others:
 * the cycle starts once every node leads its share of the groups, and a victim that led every group is named
 * as such rather than blamed on the bystanders' progress.
 */
class CycleGatesTest {

    private static final int GROUPS = 6;
    /** Slot s belongs to group s % GROUPS: enough slots to reach every group. */
    private static final int[] GROUP_OF_SLOT = {0, 1, 2, 3, 4, 5};

    private static boolean[] leading(int... groups) {
        boolean[] led = new boolean[GROUPS];
        for (int g : groups) {
            led[g] = true;
        }
        return led;
    }

    @Test
    void acknowledgementsWhileTheNodeIsDownCountAsFailoverOrBystanderByTheGroupsItLed() throws Exception {
        CycleGates gates = new CycleGates(GROUP_OF_SLOT);
        gates.outage(leading(0, 1));
        gates.accept(0); // before the kill: counts for neither
        gates.killed();
        for (int i = 0; i < ClusterKillCampaign.MIN_DURING_OUTAGE; i++) {
            gates.accept(1);
            gates.accept(4);
        }
        assertNull(gates.awaitOutageProgress(Duration.ZERO));
        assertEquals(ClusterKillCampaign.MIN_DURING_OUTAGE, gates.failoverAcks());
        assertEquals(ClusterKillCampaign.MIN_DURING_OUTAGE, gates.bystanderAcks());
    }

    @Test
    void aVictimThatLedEveryGroupLeavesNoBystanderToJudgeAndIsNamedSo() throws Exception {
        CycleGates gates = new CycleGates(GROUP_OF_SLOT);
        gates.outage(leading(0, 1, 2, 3, 4, 5));
        gates.killed();
        for (int i = 0; i < 100; i++) {
            gates.accept(i % GROUPS);
        }
        String problem = gates.awaitOutageProgress(Duration.ZERO);
        assertTrue(problem != null && problem.startsWith("no bystander group"), String.valueOf(problem));
    }

    private static Map<String, String> info(String state, int led) {
        Map<String, String> info = new HashMap<>();
        info.put("cluster_state", state);
        info.put("cluster_groups_led", Integer.toString(led));
        return info;
    }

    @Test
    void aCycleStartsOnlyOnceEveryNodeLeadsItsShareOfTheGroups() {
        assertTrue(ClusterState.leadsItsShare(info("ok", 2), GROUPS, 3));
        assertFalse(ClusterState.leadsItsShare(info("ok", 6), GROUPS, 3), "one node leading every group");
        assertFalse(ClusterState.leadsItsShare(info("ok", 0), GROUPS, 3), "a node leading none");
        assertFalse(ClusterState.leadsItsShare(info("fail", 2), GROUPS, 3), "a group without a leader");
        assertFalse(ClusterState.leadsItsShare(info("ok", 3), GROUPS, 3), "the survivors of a failover");
        assertFalse(ClusterState.leadsItsShare(null, GROUPS, 3), "a node not answering");
    }
}

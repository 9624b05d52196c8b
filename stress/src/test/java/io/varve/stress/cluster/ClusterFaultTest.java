package io.varve.stress.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --faults} names the cluster campaign's faults, which its cycles take in turn. */
class ClusterFaultTest {

    @Test
    void theCyclesTakeTheNamedFaultsInTurnInTheOrderNamed() {
        List<ClusterFault> faults = ClusterFault.parse("Partition, kill");
        assertEquals(List.of(ClusterFault.PARTITION, ClusterFault.KILL), faults);
        assertEquals(ClusterFault.PARTITION, ClusterFault.ofCycle(faults, 1));
        assertEquals(ClusterFault.KILL, ClusterFault.ofCycle(faults, 2));
        assertEquals(ClusterFault.PARTITION, ClusterFault.ofCycle(faults, 3));
        assertEquals(ClusterFault.KILL, ClusterFault.ofCycle(List.of(ClusterFault.KILL), 7));
    }

    @Test
    void anUnknownOrRepeatedFaultIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ClusterFault.parse("kill,flood"));
        assertThrows(IllegalArgumentException.class, () -> ClusterFault.parse("kill,kill"));
    }
}

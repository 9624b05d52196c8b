package io.varve.stress.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.varve.stress.cluster.KeyHistory.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cluster campaign's oracle fails on what it is named for: a lost acknowledged write, a write appearing
 * twice, one no one made, a list out of the order sent, and replicas whose copies differ.
 */
class KeyHistoryTest {

    private static KeyHistory history(Kind kind, List<String> base, Object... writes) {
        KeyHistory h = new KeyHistory("k", kind);
        h.settle(base);
        for (int i = 0; i < writes.length; i += 2) {
            h.record((String) writes[i], (Boolean) writes[i + 1]);
        }
        return h;
    }

    @Test
    void aListHoldsItsBaseThenTheWritesInOrderWithEveryAcknowledgedOneOnce() {
        KeyHistory h = history(Kind.LIST, List.of("0.1"), "0.2", true, "0.3", false, "0.4", true);
        assertNull(h.judge(List.of("0.1", "0.2", "0.4")));
        assertNull(h.judge(List.of("0.1", "0.2", "0.3", "0.4")));
        assertNotNull(h.judge(List.of("0.1", "0.4")), "an acknowledged write lost");
        assertNotNull(h.judge(List.of("0.1", "0.2", "0.3", "0.3", "0.4")), "an unacknowledged write applied twice");
        assertNotNull(h.judge(List.of("0.1", "0.4", "0.2")), "out of the order sent");
        assertNotNull(h.judge(List.of("0.2", "0.4")), "the base lost");
        assertNotNull(h.judge(List.of("0.1", "0.2", "0.4", "9.9")), "a write no one made");
    }

    @Test
    void aTransactionLogIsJudgedAsAListAndAPartialExecShowsAsAStrayToken() {
        KeyHistory h = history(Kind.TX, List.of(), "1.1", true);
        assertNull(h.judge(List.of("1.1")));
        assertNotNull(h.judge(List.of("1.1", "counter=2")));
    }

    @Test
    void aSetHoldsItsBaseAndEveryAcknowledgedMemberAndOnlyWrittenOnes() {
        KeyHistory h = history(Kind.SET, List.of("0.1"), "0.2", true, "0.3", false);
        assertNull(h.judge(List.of("0.1", "0.2")));
        assertNull(h.judge(List.of("0.1", "0.2", "0.3")));
        assertNotNull(h.judge(List.of("0.1", "0.3")));
        assertNotNull(h.judge(List.of("0.2")));
        assertNotNull(h.judge(List.of("0.1", "0.2", "7.7")));
    }

    @Test
    void aStringHoldsTheLastAcknowledgedValueOrALaterUnacknowledgedOne() {
        KeyHistory h = history(Kind.STRING, List.of("0.1"), "0.2", false, "0.3", true, "0.4", false);
        assertNull(h.judge(List.of("0.3")));
        assertNull(h.judge(List.of("0.4")));
        assertNotNull(h.judge(List.of("0.2")), "an earlier unacknowledged write over the acknowledged one");
        assertNotNull(h.judge(List.of("0.1")));
        assertNotNull(h.judge(List.of()));
        KeyHistory none = history(Kind.STRING, List.of(), "0.5", false);
        assertNull(none.judge(List.of()));
        assertNull(none.judge(List.of("0.5")));
    }

    @Test
    void replicasDifferingInOneKeyDifferInThatKeysSlot() {
        Map<String, List<String>> a = Map.of("x", List.of("0.1"), "y", List.of("0.2"));
        Map<String, List<String>> b = Map.of("x", List.of("0.1"), "y", List.of());
        ReplicaReader.NodeState one = new ReplicaReader.NodeState(new java.util.TreeMap<>(a), 2, ReplicaReader.slotSums(a));
        ReplicaReader.NodeState two = new ReplicaReader.NodeState(new java.util.TreeMap<>(b), 1, ReplicaReader.slotSums(b));
        assertNull(ClusterState.firstDifference(one, one));
        String differs = ClusterState.firstDifference(one, two);
        assertNotNull(differs);
        assertEquals(true, differs.contains("y is [0.2]"), differs);
    }
}

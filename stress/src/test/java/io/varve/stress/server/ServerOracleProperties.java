package io.varve.stress.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The server kill campaign's oracle: {@code matchingPrefix} accepts a recovered state exactly when it is the
 * state after some prefix that holds every acknowledged command, and then names such a prefix. A prefix's
 * state need not be unique (a DEL can remove what the command before it created), so the prefix it names may
 * be shorter than the one applied; it must still hold every acknowledged command and give the same state.
 */
class ServerOracleProperties {

    /** A sample whose last two commands bring back the state after the fourth. */
    @Example
    void aStateThatRecursIsMatchedAtItsFirstPrefix() {
        aStateIsAcceptedExactlyWhenAPrefixHoldingEveryAcknowledgedCommandGivesIt(2252386L, 6, 0, 6);
    }

    @Property(tries = 200)
    void aStateIsAcceptedExactlyWhenAPrefixHoldingEveryAcknowledgedCommandGivesIt(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 200) int sent, @ForAll @IntRange(min = 0, max = 200) int acked,
            @ForAll @IntRange(min = 0, max = 200) int applied) {
        Random random = new Random(seed);
        Map<String, String> base = Map.of("s:c0:s1", "old", "n:c0:n0", "7");
        ConnectionModel model = new ConnectionModel(0, base);
        List<PipelinedClient.Sent> commands = new ArrayList<>();
        for (int i = 0; i < sent; i++) {
            commands.add(new PipelinedClient.Sent(model.next(random, 1)));
        }
        int ack = Math.min(acked, sent);
        int k = Math.min(applied, sent);
        Map<String, String> actual = stateAfter(base, commands, k);
        boolean acceptable = false;
        for (int n = ack; n <= sent; n++) {
            acceptable |= stateAfter(base, commands, n).equals(actual);
        }
        int found = ServerKillCampaign.matchingPrefix(base, commands, ack, actual);
        if (!acceptable) {
            assertEquals(-1, found);
            return;
        }
        assertTrue(found >= ack && found <= sent, "a prefix holding every acknowledged command: " + found);
        assertEquals(actual, stateAfter(base, commands, found));
        if (k >= ack) {
            assertTrue(found <= k, "the first matching prefix is found");
        }
    }

    private static Map<String, String> stateAfter(Map<String, String> base, List<PipelinedClient.Sent> commands,
            int n) {
        Map<String, String> state = new HashMap<>(base);
        for (int i = 0; i < n; i++) {
            commands.get(i).command.applyTo(state);
        }
        return state;
    }
}

package io.varve.stress.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The server kill campaign's oracle: every command a connection model chooses changes the state, so the state
 * after a prefix names the prefix's length; {@code matchingPrefix} finds it when it holds every acknowledged
 * command and refuses it otherwise.
 */
class ServerOracleProperties {

    @Property(tries = 200)
    void thePrefixIsFoundExactlyWhenItHoldsEveryAcknowledgedCommand(@ForAll long seed,
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
        Map<String, String> actual = new HashMap<>(base);
        for (int i = 0; i < k; i++) {
            commands.get(i).command.applyTo(actual);
        }
        assertEquals(k >= ack ? k : -1, ServerKillCampaign.matchingPrefix(base, commands, ack, actual));
    }
}

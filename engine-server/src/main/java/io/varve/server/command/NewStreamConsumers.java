package io.varve.server.command;

import io.varve.server.store.StreamStore;
import io.varve.server.types.RedisStreams;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The consumers a stream group read or claim creates on the way (XREADGROUP, XCLAIM, XAUTOCLAIM name a consumer
 * that need not exist yet): looked up before the command runs and again after, so its keyspace event
 * {@code xgroup-createconsumer} goes out only for a consumer that is new, as Redis sends it.
 */
final class NewStreamConsumers {

    private static final Set<String> COMMANDS = Set.of("xreadgroup", "xclaim", "xautoclaim");

    private final byte[] group;
    private final byte[] consumer;
    /** Argument positions of the keys whose group did not have the consumer before the command. */
    private final List<Integer> absentBefore;

    private NewStreamConsumers(byte[] group, byte[] consumer, List<Integer> absentBefore) {
        this.group = group;
        this.consumer = consumer;
        this.absentBefore = absentBefore;
    }

    /** What to compare after the command runs; null if the command names no consumer this looks for. */
    static NewStreamConsumers before(CommandCall call, List<Integer> keys) {
        byte[][] args = call.args();
        if (!COMMANDS.contains(call.spec().name()) || args.length < 4) {
            return null;
        }
        // XREADGROUP GROUP <group> <consumer> ... STREAMS keys; XCLAIM/XAUTOCLAIM <key> <group> <consumer> ...
        byte[] group = args[2];
        byte[] consumer = args[3];
        List<Integer> absent = new ArrayList<>();
        for (int key : keys) {
            if (!has(call.types().streams(), args[key], group, consumer)) {
                absent.add(key);
            }
        }
        return new NewStreamConsumers(group, consumer, absent);
    }

    /** The key positions whose group has the consumer now and did not before. */
    List<Integer> created(CommandCall call) {
        List<Integer> created = new ArrayList<>();
        for (int key : absentBefore) {
            if (has(call.types().streams(), call.args()[key], group, consumer)) {
                created.add(key);
            }
        }
        return created;
    }

    private static boolean has(RedisStreams streams, byte[] key, byte[] group, byte[] consumer) {
        try {
            for (StreamStore.Consumer c : streams.groups().consumers(key, group)) {
                if (Arrays.equals(c.name(), consumer)) {
                    return true;
                }
            }
            return false;
        } catch (RuntimeException noStreamOrGroup) {
            return false; // the command then fails (NOGROUP) and creates nothing
        }
    }
}

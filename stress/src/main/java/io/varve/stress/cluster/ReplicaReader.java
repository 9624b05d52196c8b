package io.varve.stress.cluster;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * Reads one node's own copy of every key of the workload (after {@code READONLY}, a node answers reads of the
 * groups it follows from its local state), as the token lists {@link KeyHistory#judge} takes, and sums them
 * per slot so that the replicas of every group can be compared. Anything the workload could not have written
 * shows as a token no write has: a hash field whose value is not the field, a sorted set member whose score is
 * not its sequence, a transaction counter that disagrees with its log's length.
 */
final class ReplicaReader {
    private static final long RETRY_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** One node's copy: each key's tokens, how many Redis keys exist, and a checksum per slot. */
    record NodeState(Map<String, List<String>> keys, long redisKeys, Map<Integer, Long> slotSums) {
    }

    private ReplicaReader() {
    }

    static NodeState read(RedisCommands<String, String> node, List<KeyHistory> histories) {
        node.readOnly();
        Map<String, List<String>> states = new TreeMap<>();
        long redisKeys = 0;
        for (KeyHistory h : histories) {
            List<String> tokens = new ArrayList<>();
            String k = h.key();
            switch (h.kind()) {
                case STRING -> {
                    String v = retrying(() -> node.get(k));
                    if (v != null) {
                        tokens.add(v);
                    }
                }
                case HASH -> new TreeMap<>(retrying(() -> node.hgetall(k))).forEach((f, v) ->
                        tokens.add(f.equals(v) ? f : f + "=" + v));
                case LIST -> tokens.addAll(retrying(() -> node.lrange(k, 0, -1)));
                case SET -> tokens.addAll(new java.util.TreeSet<>(retrying(() -> node.smembers(k))));
                case ZSET -> {
                    for (ScoredValue<String> sv : retrying(() -> node.zrangeWithScores(k, 0, -1))) {
                        String m = sv.getValue();
                        boolean scoreIsSequence = sv.getScore() == Double.parseDouble(m.substring(m.indexOf('.') + 1));
                        tokens.add(scoreIsSequence ? m : m + "@" + sv.getScore());
                    }
                    tokens.sort(null);
                }
                case TX -> {
                    tokens.addAll(retrying(() -> node.lrange(k + ":log", 0, -1)));
                    String n = retrying(() -> node.get(k + ":n"));
                    redisKeys += n == null ? 0 : 1; // the log is counted below
                    if ((n == null ? 0 : Long.parseLong(n)) != tokens.size()) {
                        tokens.add("counter=" + n); // EXEC applied in part
                    }
                }
            }
            boolean listExists = h.kind() != KeyHistory.Kind.TX || !tokens.isEmpty() && !tokens.getFirst().startsWith("counter=");
            redisKeys += listExists && !tokens.isEmpty() ? 1 : 0;
            states.put(k, List.copyOf(tokens));
        }
        return new NodeState(states, redisKeys, slotSums(states));
    }

    /** A CRC32 per slot over its keys, in key order, and their tokens. */
    static Map<Integer, Long> slotSums(Map<String, List<String>> states) {
        Map<Integer, CRC32> sums = new TreeMap<>();
        states.forEach((key, tokens) -> {
            int slot = io.varve.server.command.KeySlot.of(key.getBytes(StandardCharsets.UTF_8));
            CRC32 crc = sums.computeIfAbsent(slot, s -> new CRC32());
            crc.update((key + "=" + String.join(",", tokens) + "\n").getBytes(StandardCharsets.UTF_8));
        });
        Map<Integer, Long> out = new TreeMap<>();
        sums.forEach((slot, crc) -> out.put(slot, crc.getValue()));
        return out;
    }

    /** A node leading the key's group answers TRYAGAIN until it has caught up in its term: ask again. */
    private static <T> T retrying(Supplier<T> read) {
        long deadline = System.nanoTime() + RETRY_LIMIT_NANOS;
        while (true) {
            try {
                return read.get();
            } catch (RedisCommandExecutionException e) {
                String m = String.valueOf(e.getMessage());
                if (!(m.startsWith("TRYAGAIN") || m.startsWith("CLUSTERDOWN")) || System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }
}

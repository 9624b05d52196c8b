package io.varve.server.store;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The waiter registry against a model of per-key FIFO queues. Waiters block on one or more keys and take one
 * item when served; the test adds items to keys and signals them, cancels waiters (as a timeout or
 * disconnect does), and checks who was served from which key, in which order, and the queue lengths.
 */
class BlockingKeysProperties {

    private static final List<String> KEYS = List.of("a", "b", "c");

    /** A waiter taking one item of any of its keys; once served it answers GONE like a finished client. */
    private final class TestWaiter implements BlockingKeys.Waiter {
        final int id;
        boolean done;

        TestWaiter(int id) {
            this.id = id;
        }

        @Override
        public BlockingKeys.Outcome serve(byte[] readyKey) {
            if (done) {
                return BlockingKeys.Outcome.GONE;
            }
            String key = new String(readyKey, StandardCharsets.UTF_8);
            if (items.getOrDefault(key, 0) == 0) {
                return BlockingKeys.Outcome.NOT_READY;
            }
            items.merge(key, -1, Integer::sum);
            done = true;
            served.add(id + "@" + key);
            return BlockingKeys.Outcome.SERVED;
        }
    }

    private final Map<String, Integer> items = new HashMap<>();
    private final List<String> served = new ArrayList<>();

    @Property(tries = 300)
    void servesWaitersOldestFirstAndForgetsCancelledOnes(@ForAll("programs") List<String[]> program) {
        items.clear();
        served.clear();
        BlockingKeys registry = new BlockingKeys();
        Map<Integer, TestWaiter> waiters = new HashMap<>();
        Map<String, ArrayDeque<Integer>> model = new LinkedHashMap<>();
        Map<String, Integer> modelItems = new HashMap<>();
        List<String> modelServed = new ArrayList<>();
        int nextId = 0;
        for (String[] op : program) {
            switch (op[0]) {
                case "BLOCK" -> {
                    TestWaiter w = new TestWaiter(nextId++);
                    waiters.put(w.id, w);
                    List<byte[]> keys = new ArrayList<>();
                    for (int i = 1; i < op.length; i++) {
                        keys.add(op[i].getBytes(StandardCharsets.UTF_8)); // duplicates too, as BLPOP a a 0 sends
                    }
                    for (String k : new LinkedHashSet<>(List.of(op).subList(1, op.length))) {
                        model.computeIfAbsent(k, x -> new ArrayDeque<>()).addLast(w.id);
                    }
                    registry.register(w, keys);
                }
                case "CANCEL" -> {
                    if (!waiters.isEmpty()) {
                        int id = waiters.keySet().stream().sorted().toList().get(Integer.parseInt(op[1]) % waiters.size());
                        TestWaiter w = waiters.remove(id);
                        w.done = true;
                        registry.remove(w);
                        model.values().forEach(q -> q.remove((Integer) id));
                    }
                }
                case "PUSH" -> {
                    String k = op[1];
                    int n = Integer.parseInt(op[2]);
                    items.merge(k, n, Integer::sum);
                    modelItems.merge(k, n, Integer::sum);
                    registry.signal(k.getBytes(StandardCharsets.UTF_8));
                    ArrayDeque<Integer> q = model.getOrDefault(k, new ArrayDeque<>());
                    while (!q.isEmpty() && modelItems.get(k) > 0) {
                        int id = q.pollFirst();
                        modelItems.merge(k, -1, Integer::sum);
                        modelServed.add(id + "@" + k);
                        waiters.remove(id);
                        model.values().forEach(other -> other.remove((Integer) id));
                    }
                }
                default -> throw new IllegalArgumentException(op[0]);
            }
            assertEquals(modelServed, served);
            assertEquals(modelItems, items);
            for (String k : KEYS) {
                assertEquals(model.getOrDefault(k, new ArrayDeque<>()).size(),
                        registry.waitingOn(k.getBytes(StandardCharsets.UTF_8)), "waiting on " + k);
            }
            assertEquals(waiters.size(), registry.blockedCount());
        }
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(4, key.list().ofMinSize(1).ofMaxSize(3).map(ks -> {
                    List<String> all = new ArrayList<>(ks);
                    all.addFirst("BLOCK");
                    return all.toArray(new String[0]);
                })),
                Tuple.of(1, Arbitraries.integers().between(0, 50).map(i -> new String[] {"CANCEL", String.valueOf(i)})),
                Tuple.of(3, Combinators.combine(key, Arbitraries.integers().between(1, 3))
                        .as((k, n) -> new String[] {"PUSH", k, String.valueOf(n)})));
        return op.list().ofMinSize(1).ofMaxSize(40);
    }
}

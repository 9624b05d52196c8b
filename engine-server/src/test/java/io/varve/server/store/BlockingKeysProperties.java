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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The waiter registry against models. Waiters block on keys of one database and take one item when served;
 * programs add items to keys and signal them, take items without signalling (another client's plain pop),
 * cancel waiters (a timeout or disconnect), swap databases and unblock everyone.
 *
 * <p>Without concurrency the registry must match a model of per-(database, key) FIFO queues exactly. With a
 * serve held mid-way on another thread (the test's gate) while the program goes on, who is served first is
 * no longer fixed, so the checks become the registry's contract: no item lost or taken twice, every waiter
 * ended at most once, and no waiter left waiting, or left unregistered, while one of its keys holds items.
 */
class BlockingKeysProperties {

    private static final List<String> KEYS = List.of("a", "b", "c");
    private static final int DATABASES = 2;

    /** Items per (database, key); shared by the test waiters and the program. */
    private final Map<String, Integer> items = new HashMap<>();
    /** "id@database:key" per serve, in order. */
    private final List<String> served = new ArrayList<>();
    /** Ids of waiters whose wait ended (cancel or unblock), in order. */
    private final List<Integer> ended = new ArrayList<>();
    /** The serving thread whose first attempt is held, or null. */
    private volatile Thread holder;
    private volatile CountDownLatch held;
    private volatile CountDownLatch release;

    private static String slot(int database, String key) {
        return database + ":" + key;
    }

    private final class TestWaiter implements BlockingKeys.Waiter {
        final int id;
        final List<String> keys;
        /** The physical database it waits in now; moves with SWAPDB. */
        int database;
        BlockingKeys.Registration registration;

        TestWaiter(int id, int database, List<String> keys) {
            this.id = id;
            this.database = database;
            this.keys = keys;
        }

        @Override
        public boolean tryServe(int servedIn, byte[] readyKey) {
            if (Thread.currentThread() == holder && held.getCount() > 0) {
                held.countDown(); // the serve is mid-way: SERVING, nothing looked at yet
                await(release);
            }
            String slot = slot(servedIn, new String(readyKey, StandardCharsets.UTF_8));
            synchronized (items) {
                if (items.getOrDefault(slot, 0) == 0) {
                    return false;
                }
                items.merge(slot, -1, Integer::sum);
                served.add(id + "@" + slot);
            }
            return true;
        }

        @Override
        public void unblocked(String error) {
            synchronized (items) {
                ended.add(id);
            }
        }

        void cancel() {
            registration.end(() -> {
                synchronized (items) {
                    ended.add(id);
                }
            });
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS), "hung");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private void reset() {
        items.clear();
        served.clear();
        ended.clear();
        holder = null;
    }

    private TestWaiter block(BlockingKeys registry, int id, String[] op) {
        int database = Integer.parseInt(op[1]);
        List<String> keys = List.of(op).subList(2, op.length);
        TestWaiter w = new TestWaiter(id, database, keys);
        List<byte[]> raw = new ArrayList<>();
        for (String k : keys) {
            raw.add(k.getBytes(StandardCharsets.UTF_8)); // duplicates too, as BLPOP a a 0 sends
        }
        w.registration = registry.register(database, w, raw);
        return w;
    }

    @Property(tries = 300)
    void servesWaitersOldestFirstPerDatabaseAndForgetsCancelledOnes(@ForAll("sequentialPrograms") List<String[]> program) {
        reset();
        BlockingKeys registry = new BlockingKeys();
        Map<Integer, TestWaiter> waiters = new HashMap<>();
        Map<String, ArrayDeque<Integer>> model = new LinkedHashMap<>();
        Map<String, Integer> modelItems = new HashMap<>();
        List<String> modelServed = new ArrayList<>();
        int nextId = 0;
        for (String[] op : program) {
            switch (op[0]) {
                case "BLOCK" -> {
                    TestWaiter w = block(registry, nextId++, op);
                    waiters.put(w.id, w);
                    for (String k : new LinkedHashSet<>(w.keys)) {
                        model.computeIfAbsent(slot(w.database, k), x -> new ArrayDeque<>()).addLast(w.id);
                    }
                }
                case "CANCEL" -> {
                    if (!waiters.isEmpty()) {
                        int id = waiters.keySet().stream().sorted().toList().get(Integer.parseInt(op[1]) % waiters.size());
                        waiters.remove(id).cancel();
                        model.values().forEach(q -> q.remove((Integer) id));
                    }
                }
                case "PUSH" -> {
                    int database = Integer.parseInt(op[1]);
                    String slot = slot(database, op[2]);
                    int n = Integer.parseInt(op[3]);
                    items.merge(slot, n, Integer::sum);
                    modelItems.merge(slot, n, Integer::sum);
                    registry.signal(database, op[2].getBytes(StandardCharsets.UTF_8));
                    ArrayDeque<Integer> q = model.getOrDefault(slot, new ArrayDeque<>());
                    while (!q.isEmpty() && modelItems.get(slot) > 0) {
                        int id = q.pollFirst();
                        modelItems.merge(slot, -1, Integer::sum);
                        modelServed.add(id + "@" + slot);
                        waiters.remove(id);
                        model.values().forEach(other -> other.remove((Integer) id));
                    }
                }
                default -> throw new IllegalArgumentException(op[0]);
            }
            assertEquals(modelServed, served);
            assertEquals(modelItems, items);
            for (int d = 0; d < DATABASES; d++) {
                for (String k : KEYS) {
                    assertEquals(model.getOrDefault(slot(d, k), new ArrayDeque<>()).size(),
                            registry.waitingOn(d, k.getBytes(StandardCharsets.UTF_8)), "waiting on " + slot(d, k));
                }
            }
            assertEquals(waiters.size(), registry.blockedCount());
        }
    }

    /**
     * Programs that also swap databases, take items without signalling, unblock everyone, and hold one serve
     * mid-way on another thread ({@code HOLD}) until {@code RELEASE}: meanwhile other writers meet the held
     * waiter, items vanish under it, and it may be cancelled.
     */
    @Property(tries = 300)
    void noWaiterIsLostWhateverServesAreInProgress(@ForAll("concurrentPrograms") List<String[]> program)
            throws InterruptedException {
        reset();
        BlockingKeys registry = new BlockingKeys();
        Map<Integer, TestWaiter> all = new HashMap<>();
        Map<String, Integer> pushed = new HashMap<>();
        Map<String, Integer> taken = new HashMap<>();
        Thread helper = null;
        int nextId = 0;
        for (String[] op : program) {
            switch (op[0]) {
                case "BLOCK" -> {
                    int id = nextId++;
                    if (!popAtOnce(id, op)) {
                        all.put(id, block(registry, id, op));
                    }
                }
                case "CANCEL" -> {
                    if (!all.isEmpty()) {
                        List<Integer> ids = all.keySet().stream().sorted().toList();
                        all.get(ids.get(Integer.parseInt(op[1]) % ids.size())).cancel();
                    }
                }
                case "PUSH" -> {
                    int database = Integer.parseInt(op[1]);
                    push(pushed, database, op[2], Integer.parseInt(op[3]));
                    registry.signal(database, op[2].getBytes(StandardCharsets.UTF_8));
                }
                case "POP" -> {
                    String slot = slot(Integer.parseInt(op[1]), op[2]);
                    synchronized (items) {
                        int n = Math.min(Integer.parseInt(op[3]), items.getOrDefault(slot, 0));
                        items.merge(slot, -n, Integer::sum);
                        taken.merge(slot, n, Integer::sum);
                    }
                }
                case "HOLD" -> {
                    if (helper != null) {
                        break;
                    }
                    int database = Integer.parseInt(op[1]);
                    byte[] key = op[2].getBytes(StandardCharsets.UTF_8);
                    push(pushed, database, op[2], 1);
                    CountDownLatch heldOrDone = new CountDownLatch(1);
                    held = heldOrDone;
                    release = new CountDownLatch(1);
                    helper = Thread.ofPlatform().unstarted(() -> {
                        try {
                            registry.signal(database, key);
                        } finally {
                            heldOrDone.countDown(); // no waiter to hold: the signal simply ended
                        }
                    });
                    holder = helper;
                    helper.start();
                    await(heldOrDone);
                }
                case "RELEASE" -> helper = release(helper);
                case "SWAP" -> {
                    if (helper == null) { // SWAPDB is exclusive: no serve runs beside it
                        int a = Integer.parseInt(op[1]);
                        int b = Integer.parseInt(op[2]);
                        for (TestWaiter w : all.values()) {
                            w.database = w.database == a ? b : w.database == b ? a : w.database;
                        }
                        registry.swapDatabases(a, b);
                    }
                }
                case "UNBLOCK" -> registry.unblockAll("UNBLOCKED");
                default -> throw new IllegalArgumentException(op[0]);
            }
            if (helper == null) {
                checkContract(registry, all, pushed, taken);
            }
        }
        release(helper);
        checkContract(registry, all, pushed, taken);
    }

    /**
     * What a blocking command does before it registers (under its keys' locks): take an item of the first of
     * its keys that has one. Returns whether it did.
     */
    private boolean popAtOnce(int id, String[] op) {
        synchronized (items) {
            for (String k : List.of(op).subList(2, op.length)) {
                String slot = slot(Integer.parseInt(op[1]), k);
                if (items.getOrDefault(slot, 0) > 0) {
                    items.merge(slot, -1, Integer::sum);
                    served.add(id + "@" + slot);
                    return true;
                }
            }
            return false;
        }
    }

    private void push(Map<String, Integer> pushed, int database, String key, int n) {
        String slot = slot(database, key);
        synchronized (items) {
            items.merge(slot, n, Integer::sum);
        }
        pushed.merge(slot, n, Integer::sum);
    }

    private Thread release(Thread helper) throws InterruptedException {
        if (helper != null) {
            release.countDown();
            helper.join(10_000);
            assertTrue(!helper.isAlive(), "the held serve hung");
            holder = null;
        }
        return null;
    }

    /** The registry's contract, checked while no serve is in progress. */
    private void checkContract(BlockingKeys registry, Map<Integer, TestWaiter> all, Map<String, Integer> pushed,
                               Map<String, Integer> taken) {
        Map<Integer, Integer> endings = new HashMap<>();
        Map<String, Integer> delivered = new HashMap<>();
        for (String s : served) {
            endings.merge(Integer.parseInt(s.substring(0, s.indexOf('@'))), 1, Integer::sum);
            delivered.merge(s.substring(s.indexOf('@') + 1), 1, Integer::sum);
        }
        for (int id : ended) {
            endings.merge(id, 1, Integer::sum);
        }
        endings.forEach((id, n) -> assertEquals(1, n, "waiter " + id + " ended " + n + " times"));
        for (Map.Entry<String, Integer> e : pushed.entrySet()) {
            String slot = e.getKey();
            assertEquals(e.getValue(), items.getOrDefault(slot, 0) + delivered.getOrDefault(slot, 0)
                    + taken.getOrDefault(slot, 0), "every item of " + slot + " is somewhere, once");
        }
        Map<String, Integer> waiting = new HashMap<>();
        int stillWaiting = 0;
        for (TestWaiter w : all.values()) {
            if (endings.containsKey(w.id)) {
                continue;
            }
            stillWaiting++;
            for (String k : new LinkedHashSet<>(w.keys)) {
                String slot = slot(w.database, k);
                waiting.merge(slot, 1, Integer::sum);
                assertEquals(0, items.getOrDefault(slot, 0), "waiter " + w.id + " left waiting beside items of " + slot);
            }
        }
        assertEquals(stillWaiting, registry.blockedCount(), "registered waiters");
        for (int d = 0; d < DATABASES; d++) {
            for (String k : KEYS) {
                assertEquals(waiting.getOrDefault(slot(d, k), 0),
                        registry.waitingOn(d, k.getBytes(StandardCharsets.UTF_8)), "waiting on " + slot(d, k));
            }
        }
    }

    private static Arbitrary<String[]> blockOp() {
        return Combinators.combine(Arbitraries.integers().between(0, DATABASES - 1),
                Arbitraries.of(KEYS).list().ofMinSize(1).ofMaxSize(3)).as((d, ks) -> {
                    List<String> op = new ArrayList<>(ks);
                    op.addFirst(String.valueOf(d));
                    op.addFirst("BLOCK");
                    return op.toArray(new String[0]);
                });
    }

    private static Arbitrary<String[]> keyOp(String name, int max) {
        return Combinators.combine(Arbitraries.integers().between(0, DATABASES - 1), Arbitraries.of(KEYS),
                Arbitraries.integers().between(1, max))
                .as((d, k, n) -> new String[] {name, String.valueOf(d), k, String.valueOf(n)});
    }

    private static Arbitrary<String[]> cancelOp() {
        return Arbitraries.integers().between(0, 50).map(i -> new String[] {"CANCEL", String.valueOf(i)});
    }

    @Provide
    Arbitrary<List<String[]>> sequentialPrograms() {
        return Arbitraries.frequencyOf(Tuple.of(4, blockOp()), Tuple.of(1, cancelOp()), Tuple.of(3, keyOp("PUSH", 3)))
                .list().ofMinSize(1).ofMaxSize(40);
    }

    @Provide
    Arbitrary<List<String[]>> concurrentPrograms() {
        return Arbitraries.frequencyOf(
                Tuple.of(4, blockOp()),
                Tuple.of(1, cancelOp()),
                Tuple.of(3, keyOp("PUSH", 3)),
                Tuple.of(2, keyOp("POP", 3)),
                Tuple.of(2, keyOp("HOLD", 1).map(op -> new String[] {op[0], op[1], op[2]})),
                Tuple.of(1, Arbitraries.just(new String[] {"RELEASE"})),
                Tuple.of(1, Arbitraries.just(new String[] {"SWAP", "0", "1"})),
                Tuple.of(1, Arbitraries.just(new String[] {"UNBLOCK"})))
                .list().ofMinSize(1).ofMaxSize(40);
    }
}

package io.varve.stress.cluster;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.varve.server.command.KeySlot;
import io.varve.stress.cluster.KeyHistory.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The cluster campaign's writers: each worker owns {@code keysPerKind} keys of every {@link Kind}, spread
 * over the slots by their names (a transaction pair shares a hash tag), and writes them one command at a
 * time through its own connection of Lettuce's {@link RedisClusterClient}, which routes by slot and follows
 * MOVED. Every write carries a token no other write has ({@code <worker>.<sequence>}; a sorted set member's
 * score is its sequence), recorded in the key's {@link KeyHistory} as acknowledged or of unknown outcome.
 *
 * <p>The client must send every command at most once, or a retried command would be a duplicate the oracle
 * blames on the server: its options turn reconnection off (Lettuce replays unanswered commands on a
 * reconnect), and a worker whose connection failed opens a new one for its next write. A command answered
 * with anything but its success reply counts as of unknown outcome.
 */
final class ClusterWorkload {

    private final List<List<KeyHistory>> keysByWorker = new ArrayList<>();
    private final long[] nextSequence;

    ClusterWorkload(int workers, int keysPerKind) {
        nextSequence = new long[workers];
        for (int w = 0; w < workers; w++) {
            List<KeyHistory> keys = new ArrayList<>();
            for (Kind kind : Kind.values()) {
                for (int i = 0; i < keysPerKind; i++) {
                    String name = kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + w + ":" + i;
                    keys.add(new KeyHistory(kind == Kind.TX ? "{" + name + "}" : name, kind));
                }
            }
            keysByWorker.add(keys);
        }
    }

    /** Every key's history, all workers'. */
    List<KeyHistory> histories() {
        List<KeyHistory> all = new ArrayList<>();
        keysByWorker.forEach(all::addAll);
        return all;
    }

    static int slotOf(KeyHistory key) {
        return KeySlot.of(key.key().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Starts one thread per worker writing until {@link Running#stop}; {@code acknowledged} hears the slot of
     * every acknowledged write, on the worker's thread.
     */
    Running start(RedisClusterClient client, long seed, IntConsumer acknowledged) {
        Random seeds = new Random(seed);
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < keysByWorker.size(); w++) {
            Worker worker = new Worker(w, client, new Random(seeds.nextLong()), acknowledged);
            workers.add(worker);
            worker.thread = Thread.ofPlatform().name("cluster-kill-worker-" + w).start(worker::run);
        }
        return new Running(workers);
    }

    /** The workers of one cycle. */
    static final class Running {
        private final List<Worker> workers;

        private Running(List<Worker> workers) {
            this.workers = workers;
        }

        /**
         * Asks every worker to stop after its current command and waits for them, at most {@code millis} each;
         * null when all stopped cleanly, else what went wrong.
         */
        String stop(long millis) throws InterruptedException {
            workers.forEach(w -> w.stopping = true);
            String problem = null;
            for (Worker w : workers) {
                if (!w.thread.join(java.time.Duration.ofMillis(millis))) {
                    problem = "worker " + w.id + " did not stop within " + millis + " ms";
                } else if (w.crashed != null) {
                    problem = "worker " + w.id + " crashed: " + w.crashed;
                }
            }
            return problem;
        }

        long acknowledged() {
            return workers.stream().mapToLong(w -> w.acknowledged).sum();
        }

        long unknown() {
            return workers.stream().mapToLong(w -> w.unknown).sum();
        }
    }

    private final class Worker {
        private final int id;
        private final RedisClusterClient client;
        private final Random random;
        private final IntConsumer listener;
        private Thread thread;
        private volatile boolean stopping;
        private volatile Throwable crashed;
        private volatile long acknowledged;
        private volatile long unknown;
        private StatefulRedisClusterConnection<String, String> connection;

        Worker(int id, RedisClusterClient client, Random random, IntConsumer listener) {
            this.id = id;
            this.client = client;
            this.random = random;
            this.listener = listener;
        }

        void run() {
            List<KeyHistory> keys = keysByWorker.get(id);
            try {
                while (!stopping) {
                    KeyHistory key = keys.get(random.nextInt(keys.size()));
                    long sequence = nextSequence[id]++;
                    String token = id + "." + sequence;
                    boolean ok;
                    try {
                        ok = write(key, token, sequence);
                    } catch (RedisCommandExecutionException refused) {
                        ok = false; // MOVED past the redirect limit, TRYAGAIN, CLUSTERDOWN: the client's view is old
                        refreshView();
                    } catch (RuntimeException connectionFailed) {
                        ok = false; // the kill, a closed connection: start over with a new one
                        dropConnection();
                    }
                    key.record(token, ok);
                    if (ok) {
                        acknowledged++;
                        listener.accept(slotOf(key));
                    } else {
                        unknown++;
                        // Pacing only: while a group elects a leader every write to it fails at once.
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                    }
                }
            } catch (Throwable t) {
                crashed = t;
            } finally {
                dropConnection();
            }
        }

        private boolean write(KeyHistory key, String token, long sequence) {
            if (connection == null) {
                connection = client.connect();
            }
            RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            String k = key.key();
            return switch (key.kind()) {
                case STRING -> "OK".equals(redis.set(k, token));
                case HASH -> redis.hset(k, token, token) != null;
                case LIST -> redis.rpush(k, token) != null;
                case SET -> redis.sadd(k, token) != null;
                case ZSET -> redis.zadd(k, (double) sequence, token) != null;
                case TX -> transaction(k, token);
            };
        }

        /** MULTI/EXEC on the connection to the slot's master: a list append and a counter, atomically. */
        private boolean transaction(String tag, String token) {
            int slot = KeySlot.of(tag.getBytes(StandardCharsets.UTF_8));
            String nodeId = connection.getPartitions().getPartitionBySlot(slot).getNodeId();
            StatefulRedisConnection<String, String> node = connection.getConnection(nodeId);
            RedisCommands<String, String> redis = node.sync();
            try {
                redis.multi();
                redis.rpush(tag + ":log", token);
                redis.incr(tag + ":n");
                TransactionResult result = redis.exec();
                return !result.wasDiscarded() && result.size() == 2 && result.get(0) instanceof Long
                        && result.get(1) instanceof Long;
            } catch (RuntimeException e) {
                // The node connection may be left inside MULTI, where the next command would be queued, not
                // run: never use it again.
                dropConnection();
                throw e;
            }
        }

        private void refreshView() {
            try {
                client.refreshPartitions();
            } catch (RuntimeException noNodeAnswered) {
                // the next write tries again
            }
        }

        private void dropConnection() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (RuntimeException ignored) {
                    // already closed by the kill
                }
                connection = null;
            }
        }
    }
}

package io.varve.server.apps;

import org.junit.jupiter.api.Test;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.FunctionMode;
import org.redisson.api.FunctionResult;
import org.redisson.api.RBatch;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RBucket;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RScript;
import org.redisson.api.RStream;
import org.redisson.api.RTopic;
import org.redisson.api.RTransaction;
import org.redisson.api.TransactionOptions;
import org.redisson.api.geo.GeoUnit;
import org.redisson.api.stream.StreamAddArgs;
import org.redisson.api.stream.StreamCreateGroupArgs;
import org.redisson.api.stream.StreamReadGroupArgs;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rest of Redisson's everyday objects on Varve, each through its own scripts and reply parsing: the other
 * lock kinds, latches, buckets with TTL, blocking queues, sorted sets, Bloom filters, topics, batches,
 * transactions, scripts, functions, XINFO and GEO. {@link RedissonObjectsResp3Test} runs the same over RESP3.
 */
class RedissonObjectsTest extends RedissonAgainstVarve {

    @Test
    void aLockWithoutLeaseIsKeptByTheWatchdogsTtl() {
        RLock lock = first.getLock("watched");
        lock.lock();
        long ttl = lock.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 30_000, "watchdog TTL " + ttl);
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    @Test
    void readLocksAreSharedAndTheWriteLockWaitsForThem() throws Exception {
        RReadWriteLock mine = first.getReadWriteLock("rw");
        RReadWriteLock theirs = second.getReadWriteLock("rw");
        mine.readLock().lock(1, TimeUnit.MINUTES);
        assertTrue(theirs.readLock().tryLock(0, 1, TimeUnit.MINUTES));
        assertFalse(theirs.writeLock().tryLock(0, 1, TimeUnit.MINUTES));
        mine.readLock().unlock();
        theirs.readLock().unlock();
        assertTrue(theirs.writeLock().tryLock(0, 1, TimeUnit.MINUTES));
        theirs.writeLock().unlock();
    }

    @Test
    void fairAndFencedLocks() throws Exception {
        RLock fair = first.getFairLock("fair");
        assertTrue(fair.tryLock(0, 1, TimeUnit.MINUTES));
        assertFalse(second.getFairLock("fair").tryLock(0, 1, TimeUnit.MINUTES));
        fair.unlock();

        RFencedLock fenced = first.getFencedLock("fenced");
        long token = fenced.lockAndGetToken(1, TimeUnit.MINUTES);
        fenced.unlock();
        assertEquals(token + 1, fenced.lockAndGetToken(1, TimeUnit.MINUTES));
        fenced.unlock();
    }

    @Test
    void aLatchOpensWhenAnotherClientCountsDown() throws Exception {
        RCountDownLatch latch = first.getCountDownLatch("latch");
        assertTrue(latch.trySetCount(1));
        second.getCountDownLatch("latch").countDown();
        assertTrue(latch.await(10, TimeUnit.SECONDS));
        assertEquals(0, latch.getCount());
    }

    @Test
    void aBucketsTtlRunsOutOnTheServersClock() {
        RBucket<String> bucket = first.getBucket("session");
        bucket.set("token", Duration.ofMinutes(1));
        long ttl = bucket.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 60_000, "TTL " + ttl);
        assertTrue(bucket.setIfExists("token2"));
        assertFalse(bucket.setIfAbsent("other", Duration.ofMinutes(1)));
        assertEquals("token2", bucket.getAndExpire(Duration.ofSeconds(30)));

        server.advance(Duration.ofSeconds(31));

        assertNull(bucket.get());
        assertTrue(bucket.setIfAbsent("fresh", Duration.ofMinutes(1)));
    }

    @Test
    void aBlockedPollIsWokenByAnotherClientsOffer() throws Exception {
        RBlockingQueue<String> queue = second.getBlockingQueue("jobs");
        CompletableFuture<String> taker = queue.pollAsync(30, TimeUnit.SECONDS).toCompletableFuture();
        awaitUntil("the poll is blocked", () -> blockedClients() > 0);
        assertTrue(first.<String>getBlockingQueue("jobs").offer("job-1"));
        assertEquals("job-1", taker.get(30, TimeUnit.SECONDS));
        assertNull(queue.poll());
    }

    @Test
    void scoredSortedSet() {
        RScoredSortedSet<String> board = first.getScoredSortedSet("board");
        board.add(1, "ann");
        board.add(2, "bob");
        assertEquals(6.0, board.addScore("ann", 5));
        assertEquals("bob", board.first());
        assertEquals(1, board.rank("ann"));
        assertFalse(board.addIfGreater(1, "bob"));
        assertEquals("bob", board.pollFirst());
        assertEquals(List.of("ann"), List.copyOf(board.readAll()));
    }

    @Test
    void bloomFilterBitsAndCounts() {
        RBloomFilter<String> filter = first.getBloomFilter("seen");
        assertTrue(filter.tryInit(1000, 0.01));
        assertTrue(filter.add("alpha"));
        assertTrue(second.<String>getBloomFilter("seen").contains("alpha"));
        assertFalse(filter.contains("omega"));
        assertEquals(1, filter.count());
    }

    @Test
    void topicsDeliverToListenersOfAnotherClient() throws Exception {
        CompletableFuture<String> plainMessage = new CompletableFuture<>();
        CompletableFuture<String> patternMessage = new CompletableFuture<>();
        RTopic topic = second.getTopic("news.sport");
        int plainId = topic.addListener(String.class, (channel, msg) -> plainMessage.complete(msg));
        int patternId = second.getPatternTopic("news.*")
                .addListener(String.class, (pattern, channel, msg) -> patternMessage.complete(channel + ":" + msg));

        assertEquals(2, first.getTopic("news.sport").publish("goal"));

        assertEquals("goal", plainMessage.get(30, TimeUnit.SECONDS));
        assertEquals("news.sport:goal", patternMessage.get(30, TimeUnit.SECONDS));
        topic.removeListener(plainId);
        second.getPatternTopic("news.*").removeListener(patternId);
    }

    @Test
    void batchesAndTransactions() {
        RBatch batch = first.createBatch(BatchOptions.defaults()
                .executionMode(BatchOptions.ExecutionMode.IN_MEMORY_ATOMIC));
        batch.getBucket("b1").setAsync("v");
        batch.getAtomicLong("counter").incrementAndGetAsync();
        batch.getAtomicLong("counter").incrementAndGetAsync();
        BatchResult<?> result = batch.execute();
        assertEquals(java.util.Arrays.asList(null, 1L, 2L), result.getResponses());

        RTransaction tx = first.createTransaction(TransactionOptions.defaults());
        tx.getBucket("t1").set("x");
        tx.getMap("t2").put("k", "v");
        tx.commit();
        assertEquals("x", second.getBucket("t1").get());
        assertEquals("v", second.getMap("t2").get("k"));
    }

    @Test
    void scriptsAndReadOnlyFunctions() {
        RScript script = first.getScript(StringCodec.INSTANCE);
        assertEquals("x", script.eval(RScript.Mode.READ_ONLY, "return 'x'", RScript.ReturnType.VALUE));
        String sha = script.scriptLoad("return ARGV[1]");
        assertEquals("y", script.evalSha(RScript.Mode.READ_ONLY, sha, RScript.ReturnType.VALUE, List.of(), "y"));

        first.getFunction(StringCodec.INSTANCE).loadAndReplace("apps",
                "redis.register_function{function_name='echo_arg', callback=function(keys, args) return args[1] end,"
                        + " flags={'no-writes'}}");
        assertEquals("v", first.getFunction(StringCodec.INSTANCE)
                .call(FunctionMode.READ, "echo_arg", FunctionResult.STRING, List.of(), "v"));
    }

    @Test
    void streamIntrospection() {
        RStream<String, String> stream = first.getStream("feed");
        stream.createGroup(StreamCreateGroupArgs.name("readers").makeStream());
        stream.add(StreamAddArgs.entry("k", "v"));
        stream.readGroup("readers", "r1", StreamReadGroupArgs.neverDelivered());

        assertEquals(1, stream.getInfo().getLength());
        assertEquals(1, stream.getInfo().getGroups());
        assertEquals("readers", stream.listGroups().get(0).getName());
        assertEquals(1, stream.listGroups().get(0).getPending());
        assertEquals("r1", stream.listConsumers("readers").get(0).getName());
        assertEquals(1, stream.listConsumers("readers").get(0).getPending());
    }

    @Test
    void geoAndHyperLogLog() {
        var geo = first.<String>getGeo("sicily");
        geo.add(13.361389, 38.115556, "Palermo");
        geo.add(15.087269, 37.502669, "Catania");
        assertEquals(166.2742, geo.dist("Palermo", "Catania", GeoUnit.KILOMETERS), 1e-4);

        var hll = first.<String>getHyperLogLog("visitors");
        hll.addAll(List.of("a", "b", "a"));
        assertEquals(2, hll.count());
    }
}

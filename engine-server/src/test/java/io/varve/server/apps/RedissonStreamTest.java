package io.varve.server.apps;

import org.junit.jupiter.api.Test;
import org.redisson.api.RStream;
import org.redisson.api.stream.PendingEntry;
import org.redisson.api.stream.PendingResult;
import org.redisson.api.stream.StreamAddArgs;
import org.redisson.api.stream.StreamCreateGroupArgs;
import org.redisson.api.stream.StreamMessageId;
import org.redisson.api.stream.StreamReadGroupArgs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redisson's RStream on Varve: XADD, consumer groups, XREADGROUP, XPENDING and XACK through Redisson's API. */
class RedissonStreamTest extends RedissonAgainstVarve {

    @Test
    void aGroupDeliversEachEntryOnceAndAckClearsItFromPending() {
        RStream<String, String> stream = first.getStream("orders");
        stream.createGroup(StreamCreateGroupArgs.name("billing").makeStream());
        List<StreamMessageId> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(stream.add(StreamAddArgs.entry("order", "o" + i)));
        }
        assertEquals(3, stream.size());

        Map<StreamMessageId, Map<String, String>> firstBatch =
                stream.readGroup("billing", "worker-1", StreamReadGroupArgs.neverDelivered().count(2));
        assertEquals(List.of(ids.get(0), ids.get(1)), List.copyOf(firstBatch.keySet()));
        assertEquals(Map.of("order", "o0"), firstBatch.get(ids.get(0)));
        Map<StreamMessageId, Map<String, String>> secondBatch = second.<String, String>getStream("orders")
                .readGroup("billing", "worker-2", StreamReadGroupArgs.neverDelivered());
        assertEquals(List.of(ids.get(2)), List.copyOf(secondBatch.keySet()));

        PendingResult pending = stream.getPendingInfo("billing");
        assertEquals(3, pending.getTotal());
        assertEquals(ids.get(0), pending.getLowestId());
        assertEquals(ids.get(2), pending.getHighestId());
        assertEquals(Map.of("worker-1", 2L, "worker-2", 1L), pending.getConsumerNames());

        assertEquals(2, stream.ack("billing", ids.get(0), ids.get(1)));
        List<PendingEntry> left = stream.listPending("billing", StreamMessageId.MIN, StreamMessageId.MAX, 10);
        assertEquals(1, left.size());
        assertEquals(ids.get(2), left.get(0).getId());
        assertEquals("worker-2", left.get(0).getConsumerName());
        assertEquals(1, left.get(0).getDeliveryCount());
    }

    @Test
    void aBlockedReadGroupReceivesAnEntryAddedByAnotherClient() throws Exception {
        RStream<String, String> stream = first.getStream("events");
        stream.createGroup(StreamCreateGroupArgs.name("audit").makeStream());
        CompletableFuture<Map<StreamMessageId, Map<String, String>>> reader = CompletableFuture.supplyAsync(() ->
                stream.readGroup("audit", "auditor", StreamReadGroupArgs.neverDelivered().timeout(Duration.ofSeconds(30))));
        awaitUntil("the reader is blocked", () -> blockedClients() > 0);

        StreamMessageId id = second.<String, String>getStream("events").add(StreamAddArgs.entry("kind", "login"));

        Map<StreamMessageId, Map<String, String>> got = reader.get(30, TimeUnit.SECONDS);
        assertEquals(Map.of(id, Map.of("kind", "login")), got);
        assertTrue(stream.ack("audit", id) == 1);
    }
}

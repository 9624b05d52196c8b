package io.varve.server.apps;

import org.junit.jupiter.api.Test;
import org.redisson.api.RBucket;
import org.redisson.api.options.ClientSideCachingOptions;
import org.redisson.config.Protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link RedissonObjectsTest} with Redisson speaking RESP3 (HELLO 3, maps and pushes), plus its client-side cache. */
class RedissonObjectsResp3Test extends RedissonObjectsTest {

    @Override
    Protocol protocol() {
        return Protocol.RESP3;
    }

    @Test
    void clientSideCachingSeesAnotherClientsWrite() {
        RBucket<String> cached = first.getClientSideCaching(ClientSideCachingOptions.defaults()).getBucket("cached");
        second.getBucket("cached").set("v1");
        assertEquals("v1", cached.get());
    }
}

package io.varve.server;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Lettuce connections for the integration tests; one shared, small set of client threads for all tests. */
final class Lettuce implements AutoCloseable {

    private static final ClientResources RESOURCES = DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(1)
            .build();

    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;

    private Lettuce(RedisClient client, StatefulRedisConnection<String, String> connection) {
        this.client = client;
        this.connection = connection;
    }

    static RedisClient client(RedisURI uri, ProtocolVersion protocol) {
        RedisClient client = RedisClient.create(RESOURCES, uri);
        client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        client.setDefaultTimeout(Duration.ofSeconds(10));
        return client;
    }

    static RedisURI.Builder uri(int port) {
        return RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(10));
    }

    static Lettuce connect(int port, ProtocolVersion protocol) {
        return connect(uri(port).build(), protocol);
    }

    static Lettuce connect(RedisURI uri, ProtocolVersion protocol) {
        RedisClient client = client(uri, protocol);
        try {
            return new Lettuce(client, client.connect());
        } catch (RuntimeException e) {
            client.shutdown(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    RedisCommands<String, String> sync() {
        return connection.sync();
    }

    RedisAsyncCommands<String, String> async() {
        return connection.async();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 1, TimeUnit.SECONDS);
    }
}

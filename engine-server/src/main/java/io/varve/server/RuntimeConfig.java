package io.varve.server;

import io.varve.server.resp.DecoderLimits;
import io.varve.server.resp.RedisError;

import java.util.Map;
import java.util.Set;

/**
 * The server's configuration while it runs: the {@link ServerConfig} it started with, replaced whole by each
 * CONFIG SET, and the values parsed from it that hot paths read (decoder limits, the pub/sub output limit).
 * Every read sees one consistent configuration; a CONFIG SET validates all its settings before it publishes
 * any. Thread-safe: readers read volatile fields, CONFIG SETs are serialized.
 */
final class RuntimeConfig {

    /**
     * Varve's parameters that need a restart: the listeners, the data directory, the event loops, the engine and
     * the replicated mode are set up once. Redis's own immutable and protected parameters are refused too
     * ({@link RedisParameters}); every other parameter may change while the server runs.
     */
    private static final Set<String> IMMUTABLE = Set.of("bind", "port", "dir", "metrics-port", "tls-cert-file",
            "tls-key-file", "io-threads", "tcp-backlog", "databases", "write-buffer-size", "raft-address",
            "raft-peers", "raft-read-mode", "raft-snapshot-interval", "raft-election-timeout", "raft-listen-port");

    private volatile ServerConfig current;
    /** Parsed once per configuration: each accepted connection's decoder keeps the limits it started with. */
    private volatile DecoderLimits decoderLimits;
    /** Read by every subscriber's outbox on each message. */
    private volatile OutputBufferLimit pubsubOutputLimit;

    RuntimeConfig(ServerConfig initial) {
        publish(initial);
    }

    ServerConfig current() {
        return current;
    }

    DecoderLimits decoderLimits() {
        return decoderLimits;
    }

    OutputBufferLimit pubsubOutputLimit() {
        return pubsubOutputLimit;
    }

    /**
     * CONFIG SET: validates every setting, then publishes the new configuration and returns it, so the caller
     * can apply what running parts cache. Redis's errors for an unknown, immutable or invalid setting.
     */
    synchronized ServerConfig set(Map<String, String> settings) {
        for (String name : settings.keySet()) {
            if (!current.asMap().containsKey(name)) {
                throw new RedisError(
                        "ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'");
            }
            if (RedisParameters.protectedConfig(name)) {
                throw new RedisError("ERR CONFIG SET failed (possibly related to argument '"
                        + name + "') - can't set protected config");
            }
            if (IMMUTABLE.contains(name) || RedisParameters.immutable(name)) {
                throw new RedisError("ERR CONFIG SET failed (possibly related to argument '"
                        + name + "') - can't set immutable config");
            }
        }
        ServerConfig next = current;
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            try {
                RedisParameters.validate(setting.getKey(), setting.getValue());
                next = next.with(setting.getKey(), setting.getValue());
            } catch (IllegalArgumentException e) {
                throw new RedisError("ERR CONFIG SET failed (possibly related to argument '"
                        + setting.getKey() + "') - " + e.getMessage());
            }
        }
        publish(next);
        return next;
    }

    private void publish(ServerConfig config) {
        decoderLimits = DecoderLimits.of(config.protoMaxBulkLength(), config.queryBufferLimit());
        pubsubOutputLimit = config.pubsubOutputLimit();
        current = config; // last: a reader of current sees the limits parsed from it
    }
}

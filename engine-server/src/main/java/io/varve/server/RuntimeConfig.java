package io.varve.server;

import io.varve.server.pubsub.KeyspaceNotifier;
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

    /** Parameters CONFIG SET may change while the server runs; the rest need a restart. */
    private static final Set<String> MUTABLE = Set.of("timeout", "maxclients", "appendfsync",
            "requirepass", "client-output-buffer-limit", "slowlog-log-slower-than", "slowlog-max-len",
            "proto-max-bulk-len", "client-query-buffer-limit", "protected-mode",
            "notify-keyspace-events");

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
            if (!MUTABLE.contains(name)) {
                throw new RedisError("ERR CONFIG SET failed (possibly related to argument '"
                        + name + "') - can't set immutable config");
            }
        }
        ServerConfig next;
        try {
            next = current.with(canonicalEventClasses(settings));
        } catch (IllegalArgumentException e) {
            throw new RedisError("ERR CONFIG SET failed (possibly related to argument '"
                    + settings.keySet().iterator().next() + "') - " + e.getMessage());
        }
        publish(next);
        return next;
    }

    /** notify-keyspace-events as Redis reports it back (KEA becomes AKE); an invalid value is left for the check. */
    private static Map<String, String> canonicalEventClasses(Map<String, String> settings) {
        String classes = settings.get("notify-keyspace-events");
        if (classes == null) {
            return settings;
        }
        Map<String, String> copy = new java.util.LinkedHashMap<>(settings);
        try {
            copy.put("notify-keyspace-events", KeyspaceNotifier.canonical(classes));
        } catch (IllegalArgumentException invalid) {
            return settings;
        }
        return copy;
    }

    private void publish(ServerConfig config) {
        decoderLimits = DecoderLimits.of(config.protoMaxBulkLength(), config.queryBufferLimit());
        pubsubOutputLimit = config.pubsubOutputLimit();
        current = config; // last: a reader of current sees the limits parsed from it
    }
}

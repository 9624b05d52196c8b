package io.varve.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Redis 7's configuration parameters, so that CONFIG GET and CONFIG SET know every name redis-server knows. Most
 * are accepted and reported back without changing what the server does (docs/server.md lists which apply); each
 * value is still checked as Redis checks it (yes/no, integer, memory size, one of a set of words), with Redis's
 * words for the refusal. The table comes from {@code redis-parameters.tsv}, taken from redis-server 7.0's
 * {@code CONFIG GET *}.
 */
final class RedisParameters {

    /** How Redis reads a parameter's value, and whether CONFIG SET may change it. */
    private record Parameter(String kind, String defaultValue) {
    }

    /**
     * Names Redis keeps for one setting: the older spelling and the newer read and write the same value.
     * Each pair is (older, newer).
     */
    private static final List<String[]> ALIASES = List.of(
            new String[] {"hash-max-ziplist-entries", "hash-max-listpack-entries"},
            new String[] {"hash-max-ziplist-value", "hash-max-listpack-value"},
            new String[] {"zset-max-ziplist-entries", "zset-max-listpack-entries"},
            new String[] {"zset-max-ziplist-value", "zset-max-listpack-value"},
            new String[] {"list-max-ziplist-size", "list-max-listpack-size"},
            new String[] {"slaveof", "replicaof"},
            new String[] {"slave-serve-stale-data", "replica-serve-stale-data"},
            new String[] {"slave-read-only", "replica-read-only"},
            new String[] {"slave-ignore-maxmemory", "replica-ignore-maxmemory"},
            new String[] {"slave-lazy-flush", "replica-lazy-flush"},
            new String[] {"slave-priority", "replica-priority"},
            new String[] {"slave-announce-ip", "replica-announce-ip"},
            new String[] {"slave-announce-port", "replica-announce-port"},
            new String[] {"min-slaves-to-write", "min-replicas-to-write"},
            new String[] {"min-slaves-max-lag", "min-replicas-max-lag"},
            new String[] {"repl-ping-slave-period", "repl-ping-replica-period"},
            new String[] {"cluster-slave-validity-factor", "cluster-replica-validity-factor"},
            new String[] {"cluster-slave-no-failover", "cluster-replica-no-failover"},
            new String[] {"lua-time-limit", "busy-reply-threshold"});

    private static final Map<String, Parameter> TABLE = load();

    private RedisParameters() {
    }

    private static Map<String, Parameter> load() {
        Map<String, Parameter> table = new LinkedHashMap<>();
        try (InputStream in = RedisParameters.class.getResourceAsStream("redis-parameters.tsv")) {
            if (in == null) {
                throw new IllegalStateException("redis-parameters.tsv is missing from the jar");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                table.put(fields[0], new Parameter(fields[1], fields.length > 2 ? fields[2] : ""));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Collections.unmodifiableMap(table);
    }

    /** Every Redis parameter with Redis's default, in the table's order. */
    static Map<String, String> defaults() {
        Map<String, String> out = new LinkedHashMap<>();
        TABLE.forEach((name, p) -> out.put(name, p.defaultValue()));
        return out;
    }

    static boolean known(String name) {
        return TABLE.containsKey(name);
    }

    /** Redis refuses CONFIG SET of these: they are read once at start-up. */
    static boolean immutable(String name) {
        Parameter p = TABLE.get(name);
        return p != null && p.kind().equals("immutable");
    }

    /** Redis refuses CONFIG SET of these unless started with enable-protected-configs. */
    static boolean protectedConfig(String name) {
        Parameter p = TABLE.get(name);
        return p != null && p.kind().equals("protected");
    }

    /** The other names of {@code name}'s setting (an older or newer spelling), empty for most. */
    static Set<String> aliasesOf(String name) {
        for (String[] pair : ALIASES) {
            if (pair[0].equals(name)) {
                return Set.of(pair[1]);
            }
            if (pair[1].equals(name)) {
                return Set.of(pair[0]);
            }
        }
        return Set.of();
    }

    /**
     * Checks {@code value} as Redis reads {@code name}'s kind; throws IllegalArgumentException with Redis's words
     * (the text after "CONFIG SET failed (possibly related to argument '...') - ").
     */
    static void validate(String name, String value) {
        Parameter p = TABLE.get(name);
        if (p == null) {
            return;
        }
        String kind = p.kind();
        String v = value.trim().toLowerCase(Locale.ROOT);
        switch (kind) {
            case "bool" -> {
                if (!v.equals("yes") && !v.equals("no")) {
                    throw new IllegalArgumentException("argument must be 'yes' or 'no'");
                }
            }
            case "int" -> {
                try {
                    Long.parseLong(v);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("argument couldn't be parsed into an integer");
                }
            }
            case "memory", "memory%" -> {
                boolean percent = kind.equals("memory%") && v.endsWith("%") && v.length() > 1
                        && v.substring(0, v.length() - 1).chars().allMatch(Character::isDigit);
                if (!percent) {
                    try {
                        ServerConfig.parseMemory(name, v);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(kind.equals("memory%")
                                ? "argument must be a memory or percent value" : "argument must be a memory value");
                    }
                }
            }
            default -> {
                if (kind.startsWith("enum:")) {
                    List<String> choices = List.of(kind.substring(5).split(","));
                    for (String word : v.split("\\s+")) {
                        if (!choices.contains(word)) {
                            throw new IllegalArgumentException("argument(s) must be one of the following: "
                                    + String.join(", ", choices));
                        }
                    }
                }
            }
        }
    }
}

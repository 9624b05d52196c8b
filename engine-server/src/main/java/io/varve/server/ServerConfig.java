package io.varve.server;

import io.varve.server.replica.ReplicationSettings;
import io.varve.server.resp.InlineParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The server's configuration: redis.conf-style parameters with Redis's names and defaults, read from a file
 * ({@code name value} lines) and overridden by {@code --name value} arguments. Immutable once built; every
 * value is validated on the way in so a bad setting fails at start-up with the parameter's name.
 */
public final class ServerConfig {

    /** How often the log is made durable (Redis's appendfsync). */
    public enum Fsync {
        /** Every write is fsynced before its reply. */
        ALWAYS,
        /** A background task fsyncs once a second; a machine crash may lose about a second of writes. */
        EVERYSEC,
        /** The OS decides when written data reaches the device. */
        NO
    }

    /** Every parameter the server knows and its default, in the order CONFIG GET lists them. */
    private static final Map<String, String> DEFAULTS = defaults();

    private static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("bind", "127.0.0.1");
        d.put("port", "6379");
        d.put("dir", "./data");
        d.put("requirepass", "");
        d.put("protected-mode", "yes");
        d.put("appendfsync", "everysec");
        d.put("appendonly", "yes");
        d.put("maxclients", "10000");
        d.put("timeout", "0");
        d.put("proto-max-bulk-len", "536870912");
        d.put("client-query-buffer-limit", "1073741824");
        d.put("client-output-buffer-limit", OutputBufferLimit.DEFAULT);
        d.put("slowlog-log-slower-than", "10000");
        d.put("slowlog-max-len", "128");
        d.put("notify-keyspace-events", "");
        d.put("metrics-port", "0");
        d.put("tls-cert-file", "");
        d.put("tls-key-file", "");
        d.put("io-threads", Integer.toString(Math.min(4, Runtime.getRuntime().availableProcessors())));
        d.put("tcp-backlog", "1024");
        d.put("databases", "16");
        d.put("save", "");
        // Smaller than the engine's 64 MiB: memtable lookups and inserts are bound by cache misses in the
        // skiplist, and 8 MiB memtables measured faster for both (docs/benchmarks.md, redis-benchmark).
        d.put("write-buffer-size", "8388608");
        // Replicated mode (docs/replication.md): empty raft-address runs a standalone server.
        d.put("raft-address", "");
        d.put("raft-peers", "");
        d.put("raft-read-mode", "readindex");
        d.put("raft-snapshot-interval", "600");
        d.put("raft-election-timeout", "1000");
        d.put("raft-listen-port", "0");
        // Cluster mode (docs/cluster.md): the slots split among this many Raft groups; 0 runs one group.
        d.put("cluster-groups", "0");
        // Cluster mode: start with no data and wait for CLUSTER MEET from a node of a running cluster.
        d.put("cluster-join", "no");
        // The rest of Redis 7's parameters: accepted and reported back (RedisParameters says which apply).
        RedisParameters.defaults().forEach(d::putIfAbsent);
        return Collections.unmodifiableMap(d);
    }

    private final Map<String, String> values;
    private final String configFile;
    /** Parsed once: every SET and APPEND checks its value against it. */
    private final long protoMaxBulkLength;

    private ServerConfig(Map<String, String> values, String configFile) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.configFile = configFile;
        validate();
        this.protoMaxBulkLength = memory("proto-max-bulk-len");
    }

    /** Every parameter's default value (CONFIG REWRITE leaves out parameters at their default). */
    static Map<String, String> defaultValues() {
        return DEFAULTS;
    }

    public static ServerConfig defaultConfig() {
        return new ServerConfig(DEFAULTS, null);
    }

    /**
     * Parses command-line arguments: {@code --config FILE} (or a first argument that is not a flag) names a
     * file read first; every {@code --name value} then overrides it. {@code --help} and {@code --demo} are
     * handled by the caller.
     */
    public static ServerConfig fromArgs(String[] args) throws IOException {
        Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
        String file = null;
        List<String[]> overrides = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i == 0 && !a.startsWith("--")) {
                file = a;
                continue;
            }
            if (!a.startsWith("--") || a.length() == 2) {
                throw new IllegalArgumentException("unexpected argument '" + a + "' (try --help)");
            }
            String name = a.substring(2).toLowerCase(Locale.ROOT);
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("--" + name + " needs a value");
            }
            String value = args[++i];
            if (name.equals("config")) {
                file = value;
            } else {
                overrides.add(new String[] {name, value});
            }
        }
        if (file != null) {
            values.putAll(parseFile(Path.of(file)));
        }
        for (String[] o : overrides) {
            put(values, o[0], o[1], "--" + o[0]);
        }
        return new ServerConfig(values, file == null ? null : Path.of(file).toAbsolutePath().toString());
    }

    /** Reads {@code name value} lines; '#' starts a comment line; values may be quoted as in redis.conf. */
    static Map<String, String> parseFile(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNumber++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            List<byte[]> words = InlineParser.split(trimmed.getBytes(StandardCharsets.UTF_8));
            String where = file + ":" + lineNumber;
            if (words == null || words.size() < 2) {
                throw new IllegalArgumentException(where + ": expected 'name value', got: " + trimmed);
            }
            String name = new String(words.get(0), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
            List<String> rest = new ArrayList<>();
            for (int i = 1; i < words.size(); i++) {
                rest.add(new String(words.get(i), StandardCharsets.UTF_8));
            }
            put(values, name, String.join(" ", rest), where);
        }
        return values;
    }

    private static void put(Map<String, String> values, String name, String value, String where) {
        if (!DEFAULTS.containsKey(name)) {
            throw new IllegalArgumentException(where + ": unknown parameter '" + name + "'");
        }
        try {
            RedisParameters.validate(name, value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + name + ": " + e.getMessage());
        }
        values.put(name, value);
        for (String alias : RedisParameters.aliasesOf(name)) {
            values.put(alias, value);
        }
    }

    /** Returns a copy with {@code name} set (for tests and embedding). */
    public ServerConfig with(String name, String value) {
        return with(Map.of(name, value));
    }

    /** Returns a copy with all of {@code settings} applied, validated together. */
    public ServerConfig with(Map<String, String> settings) {
        Map<String, String> copy = new LinkedHashMap<>(values);
        settings.forEach((name, value) -> put(copy, name, value, "with(" + name + ")"));
        return new ServerConfig(copy, configFile);
    }

    private void validate() {
        port();
        metricsPort();
        maxClients();
        timeoutSeconds();
        ioThreads();
        fsync();
        protectedMode();
        long bulk = memory("proto-max-bulk-len");
        if (bulk < 1024 || bulk > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("proto-max-bulk-len must be between 1kb and 2gb: " + bulk);
        }
        if (queryBufferLimit() < 1024 * 1024) {
            throw new IllegalArgumentException("client-query-buffer-limit must be at least 1mb");
        }
        if ((tlsCertFile() == null) != (tlsKeyFile() == null)) {
            throw new IllegalArgumentException("tls-cert-file and tls-key-file must be given together");
        }
        if (bindAddresses().isEmpty()) {
            throw new IllegalArgumentException("bind needs at least one address");
        }
        writeBufferSize();
        pubsubOutputLimit();
        databases();
        slowlogSlowerThan();
        slowlogMaxLength();
        notifyKeyspaceEvents();
        replication();
        clusterGroups();
        clusterJoin();
    }

    /**
     * Whether this node starts in cluster mode to join a running cluster (CLUSTER MEET), instead of seeding
     * one from raft-peers and cluster-groups.
     *
     * @throws IllegalArgumentException if set without raft-address
     */
    public boolean clusterJoin() {
        boolean join = yesNo("cluster-join");
        if (join && values.get("raft-address").isBlank()) {
            throw new IllegalArgumentException("cluster-join needs raft-address (cluster mode is replicated)");
        }
        return join;
    }

    /**
     * Cluster mode's number of Raft groups the hash slots are split among, 0 for the single group of
     * replicated mode.
     *
     * @throws IllegalArgumentException if set without raft-address, or out of range
     */
    public int clusterGroups() {
        int groups = intIn("cluster-groups", 0, 16384);
        if (groups > 0 && values.get("raft-address").isBlank()) {
            throw new IllegalArgumentException("cluster-groups needs raft-address (cluster mode is replicated)");
        }
        return groups;
    }

    /** The keyspace notification classes, as Redis's letters (validated). */
    public String notifyKeyspaceEvents() {
        String letters = values.get("notify-keyspace-events");
        io.varve.server.pubsub.KeyspaceNotifier.parse(letters);
        return letters;
    }

    /** The replicated mode's settings, or empty for a standalone server (no raft-address). */
    public Optional<ReplicationSettings> replication() {
        return ReplicationSettings.parse(values.get("raft-address"), values.get("raft-peers"),
                values.get("raft-read-mode"), intIn("raft-snapshot-interval", 0, Integer.MAX_VALUE),
                intIn("raft-election-timeout", 100, 600_000), intIn("raft-listen-port", 0, 65535));
    }

    public long slowlogSlowerThan() {
        try {
            return Long.parseLong(values.get("slowlog-log-slower-than").trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("slowlog-log-slower-than must be an integer (microseconds)");
        }
    }

    public int slowlogMaxLength() {
        return intIn("slowlog-max-len", 0, Integer.MAX_VALUE);
    }

    public int databases() {
        return intIn("databases", 1, 1 << 16);
    }

    /** The output buffer limit of subscribed clients. */
    OutputBufferLimit pubsubOutputLimit() {
        return OutputBufferLimit.pubsub(values.get("client-output-buffer-limit"));
    }

    public String get(String name) {
        return values.get(name);
    }

    /** All parameters with their values, for CONFIG GET. */
    public Map<String, String> asMap() {
        return values;
    }

    public String configFile() {
        return configFile;
    }

    public List<String> bindAddresses() {
        List<String> out = new ArrayList<>();
        for (String s : values.get("bind").trim().split("\\s+")) {
            if (!s.isEmpty()) {
                // Redis's "-" prefix marks an optional address; we bind it like any other.
                out.add(s.startsWith("-") ? s.substring(1) : s);
            }
        }
        return out;
    }

    public int port() {
        return intIn("port", 0, 65535);
    }

    public int metricsPort() {
        return intIn("metrics-port", 0, 65535);
    }

    public Path dir() {
        return Path.of(values.get("dir"));
    }

    public String requirePass() {
        String p = values.get("requirepass");
        return p == null || p.isEmpty() ? null : p;
    }

    public boolean protectedMode() {
        return yesNo("protected-mode");
    }

    public Fsync fsync() {
        String v = values.get("appendfsync").toLowerCase(Locale.ROOT);
        return switch (v) {
            case "always" -> Fsync.ALWAYS;
            case "everysec" -> Fsync.EVERYSEC;
            case "no" -> Fsync.NO;
            default -> throw new IllegalArgumentException("appendfsync must be always, everysec or no: " + v);
        };
    }

    public int maxClients() {
        return intIn("maxclients", 1, 1_000_000);
    }

    public int timeoutSeconds() {
        return intIn("timeout", 0, Integer.MAX_VALUE);
    }

    public long protoMaxBulkLength() {
        return protoMaxBulkLength;
    }

    public long queryBufferLimit() {
        return memory("client-query-buffer-limit");
    }

    public int ioThreads() {
        return intIn("io-threads", 1, 128);
    }

    public int tcpBacklog() {
        return intIn("tcp-backlog", 1, 65535);
    }

    public long writeBufferSize() {
        return memory("write-buffer-size");
    }

    public Path tlsCertFile() {
        String v = values.get("tls-cert-file");
        return v == null || v.isEmpty() ? null : Path.of(v);
    }

    public Path tlsKeyFile() {
        String v = values.get("tls-key-file");
        return v == null || v.isEmpty() ? null : Path.of(v);
    }

    private int intIn(String name, int min, int max) {
        String v = values.get(name).trim();
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ": " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer: " + v);
        }
    }

    private boolean yesNo(String name) {
        String v = values.get(name).trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "yes" -> true;
            case "no" -> false;
            default -> throw new IllegalArgumentException(name + " must be yes or no: " + v);
        };
    }

    /** Redis memory units: k/m/g are powers of 1000, kb/mb/gb powers of 1024; plain numbers are bytes. */
    private long memory(String name) {
        return parseMemory(name, values.get(name));
    }

    static long parseMemory(String name, String text) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        String[][] units = {{"kb", "1024"}, {"mb", "1048576"}, {"gb", "1073741824"}, {"k", "1000"},
            {"m", "1000000"}, {"g", "1000000000"}, {"b", "1"}};
        for (String[] u : units) {
            if (v.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                v = v.substring(0, v.length() - u[0].length());
                break;
            }
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new IllegalArgumentException(name + " must not be negative: " + text);
            }
            return Math.multiplyExact(n, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(name + " must be a size such as 512mb: " + text);
        }
    }

    /** The --help text. */
    public static String usage() {
        return """
                usage: bin/varve [CONFIG-FILE] [--name value ...]
                       bin/varve --demo [--dir DIR]     (the embedded-engine walkthrough)

                Starts the Redis-protocol server. Parameters use redis.conf names; a config file holds
                'name value' lines, and --name value on the command line overrides it.

                  --bind ADDR[ ADDR...]      addresses to listen on (default 127.0.0.1)
                  --port N                   RESP port (default 6379; 0 picks a free port)
                  --dir DIR                  data directory (default ./data)
                  --requirepass PASS         require AUTH with this password (default: none)
                  --config FILE              read parameters from FILE first
                  --metrics-port N           serve Prometheus metrics on http://BIND:N/metrics (default 0: off)
                  --appendfsync MODE         always | everysec (default) | no
                  --protected-mode yes|no    refuse non-loopback clients while no password is set (default yes)
                  --maxclients N             connection limit (default 10000)
                  --timeout SECONDS          close clients idle this long (default 0: never)
                  --proto-max-bulk-len SIZE  largest argument (default 512mb)
                  --client-query-buffer-limit SIZE  most bytes buffered per client (default 1gb)
                  --tls-cert-file PEM --tls-key-file PEM   serve TLS 1.2+ on --port
                  --io-threads N             network event-loop threads (default min(4, cores))
                  --write-buffer-size SIZE   engine memtable size (default 8mb)

                Replicated mode (one Raft group over the whole keyspace; docs/replication.md):
                  --raft-address HOST:PORT   this member's Raft address (default empty: standalone)
                  --raft-peers LIST          every member, comma-separated, as raftHost:raftPort/clientHost:clientPort
                  --raft-read-mode MODE      readindex (default) | lease
                  --raft-snapshot-interval S seconds between snapshots, which let the Raft log be purged (default 600)
                  --raft-election-timeout MS (default 1000)
                  --raft-listen-port N       listen for Raft on N when peers reach raft-address through a proxy
                  --cluster-groups N         cluster mode: split the slots among N Raft groups (docs/cluster.md)
                  --cluster-join yes         cluster mode: wait for CLUSTER MEET from a running cluster's node
                  --help                     this text
                """;
    }
}

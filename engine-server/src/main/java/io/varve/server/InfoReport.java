package io.varve.server;

import io.varve.core.Db;
import io.varve.core.Snapshot;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The text of INFO: {@code # Section} headers and {@code name:value} lines separated by CRLF, as Redis
 * prints them, so tools that parse INFO keep working. Field names follow Redis where a field means the same
 * thing; engine internals are in a {@code varve} section. See docs/server.md for the full list.
 */
final class InfoReport {

    private static final List<String> DEFAULT_SECTIONS =
            List.of("server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace",
                    "varve");
    /** "all" adds the per-command and per-error sections, which are long. */
    private static final List<String> ALL_SECTIONS = List.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "commandstats", "errorstats", "keyspace", "varve");

    private final RedisServer server;

    InfoReport(RedisServer server) {
        this.server = server;
    }

    String render(List<String> requested) {
        Map<String, Consumer<Map<String, Object>>> builders = new LinkedHashMap<>();
        builders.put("server", this::serverSection);
        builders.put("clients", this::clientsSection);
        builders.put("memory", this::memorySection);
        builders.put("persistence", this::persistenceSection);
        builders.put("stats", this::statsSection);
        builders.put("replication", f -> f.putAll(server.replicationInfo()));
        builders.put("cpu", this::cpuSection);
        builders.put("commandstats", f -> f.putAll(server.commandStatsForInfo().commandLines()));
        builders.put("errorstats", f -> f.putAll(server.commandStatsForInfo().errorLines()));
        builders.put("keyspace", this::keyspaceSection);
        builders.put("varve", this::engineSection);
        builders.put("engine", this::engineSection); // the same fields, for those who ask by what they hold
        List<String> sections = requested.contains("all") || requested.contains("everything") ? ALL_SECTIONS
                : requested.isEmpty() || requested.contains("default") ? DEFAULT_SECTIONS : requested;
        StringBuilder out = new StringBuilder();
        for (String name : sections) {
            Consumer<Map<String, Object>> builder = builders.get(name);
            if (builder == null) {
                continue; // unknown sections are silently empty, as in Redis
            }
            Map<String, Object> fields = new LinkedHashMap<>();
            builder.accept(fields);
            if (!out.isEmpty()) {
                out.append("\r\n");
            }
            out.append("# ").append(Character.toUpperCase(name.charAt(0))).append(name.substring(1)).append("\r\n");
            fields.forEach((k, v) -> out.append(k).append(':').append(v).append("\r\n"));
        }
        return out.toString();
    }

    private void serverSection(Map<String, Object> f) {
        ServerStats stats = server.stats();
        long uptime = (System.currentTimeMillis() - stats.startedAtMillis()) / 1000;
        f.put("redis_version", RedisServer.VERSION);
        f.put("varve_version", "0.1.0");
        f.put("redis_mode", server.routing().replicated() ? "cluster" : "standalone");
        f.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        f.put("arch_bits", "64");
        f.put("java_version", System.getProperty("java.version"));
        f.put("process_id", ProcessHandle.current().pid());
        f.put("tcp_port", server.listeningPort());
        f.put("server_time_usec", System.currentTimeMillis() * 1000);
        f.put("uptime_in_seconds", uptime);
        f.put("uptime_in_days", uptime / 86400);
        f.put("io_threads_active", server.config().ioThreads());
        f.put("config_file", server.config().configFile() == null ? "" : server.config().configFile());
    }

    private void clientsSection(Map<String, Object> f) {
        f.put("connected_clients", server.connectedClients());
        f.put("maxclients", server.config().maxClients());
        f.put("blocked_clients", server.keyspaceForInfo().blocking().blockedCount());
    }

    private void memorySection(Map<String, Object> f) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long heapUsed = memory.getHeapMemoryUsage().getUsed();
        long offHeap = memory.getNonHeapMemoryUsage().getUsed();
        f.put("used_memory", heapUsed);
        f.put("used_memory_human", human(heapUsed));
        f.put("used_memory_heap", heapUsed);
        f.put("used_memory_heap_max", Runtime.getRuntime().maxMemory());
        f.put("used_memory_non_heap", offHeap);
        f.put("maxmemory", 0);
        f.put("maxmemory_policy", "noeviction");
        f.put("engine_write_buffer_size", server.engineOptions().writeBufferSize());
    }

    private void persistenceSection(Map<String, Object> f) {
        ServerStats stats = server.stats();
        f.put("loading", 0);
        f.put("aof_enabled", 1);
        f.put("appendfsync", server.config().fsync().name().toLowerCase(java.util.Locale.ROOT));
        f.put("rdb_changes_since_last_save", 0);
        f.put("recovery_duration_ms", stats.recoveryMillis());
        f.put("wal_recovery_mode", server.engineOptions().walRecovery().name().toLowerCase(java.util.Locale.ROOT));
    }

    private void statsSection(Map<String, Object> f) {
        ServerStats stats = server.stats();
        Keyspace ks = server.keyspaceForInfo();
        f.put("total_connections_received", stats.connectionsReceived());
        f.put("total_commands_processed", stats.commands());
        f.put("total_net_input_bytes", stats.inputBytes());
        f.put("total_net_output_bytes", stats.replyBytes());
        f.put("rejected_connections", stats.connectionsRejected());
        f.put("client_output_buffer_limit_disconnections", stats.outputLimitDisconnections());
        f.put("pubsub_channels", server.dispatcherForInfo().pubSub().channelCount());
        f.put("pubsub_patterns", server.dispatcherForInfo().pubSub().patternCount());
        f.put("total_error_replies_protocol", stats.protocolErrors());
        f.put("total_error_replies", server.commandStatsForInfo().totalErrorReplies());
        f.put("expired_keys", ks.expiredKeysRemoved());
        f.put("keyspace_hits", ks.hits());
        f.put("keyspace_misses", ks.misses());
        f.put("total_writes", ks.commits());
        f.put("total_reads_answered_inline", stats.inlineReads());
        f.put("total_sets_committed_per_event_loop", stats.sharedSets());
        f.put("total_set_runs_committed_on_event_loop", stats.sharedSetRunsOnLoop());
        f.put("total_set_runs_handed_off", stats.sharedSetRunsHandedOff());
    }

    /**
     * CPU seconds of the process, split into user and system time where the OS tells ({@code /proc/self/stat}
     * on Linux); elsewhere the JVM's total is reported as user time.
     */
    private void cpuSection(Map<String, Object> f) {
        double[] userSystem = ProcessCpu.userAndSystemSeconds();
        f.put("used_cpu_sys", String.format(java.util.Locale.ROOT, "%.6f", userSystem[1]));
        f.put("used_cpu_user", String.format(java.util.Locale.ROOT, "%.6f", userSystem[0]));
        f.put("used_cpu_sys_children", "0.000000");
        f.put("used_cpu_user_children", "0.000000");
    }

    private void keyspaceSection(Map<String, Object> f) {
        Keyspace ks = server.keyspaceForInfo();
        for (int i = 0; i < ks.databases().count(); i++) {
            long[] counts = ks.databases().in(i, ks::countKeys);
            if (counts[0] > 0) {
                f.put("db" + i, "keys=" + counts[0] + ",expires=" + counts[1] + ",avg_ttl=" + counts[2]);
            }
        }
    }

    private void engineSection(Map<String, Object> f) {
        Db db = server.dbForInfo();
        f.put("engine", "varve-lsm");
        f.put("engine_dir", server.config().dir().toAbsolutePath());
        try (Snapshot s = db.snapshot()) {
            f.put("engine_last_sequence", s.sequence());
        }
        long[] files = dirUsage(server.config().dir());
        f.put("engine_files", files[0]);
        f.put("engine_disk_bytes", files[1]);
        f.put("engine_unordered_write", server.engineOptions().unorderedWrite() ? 1 : 0);
        f.put("compaction_expired_keys", server.compactionFilterForInfo().metadataRemoved());
        f.put("compaction_dead_subkeys", server.compactionFilterForInfo().subkeysRemoved());
    }

    private static long[] dirUsage(Path dir) {
        long count = 0;
        long bytes = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(p)) {
                    count++;
                    bytes += Files.size(p);
                }
            }
        } catch (IOException e) {
            return new long[] {-1, -1};
        }
        return new long[] {count, bytes};
    }

    private static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + "B";
        }
        String units = "KMGTP";
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length() - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.2f%c", v, units.charAt(u));
    }
}

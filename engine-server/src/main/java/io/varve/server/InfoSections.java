package io.varve.server;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.Snapshot;
import io.varve.server.command.Dispatcher;
import io.varve.server.command.ReplicaRouting;
import io.varve.server.store.Keyspace;
import io.varve.server.store.KeyspaceCompactionFilter;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The server's INFO sections, each an {@link InfoSource} reading the components it reports on. The
 * configuration is read through a supplier at each INFO, since CONFIG SET replaces it.
 */
final class InfoSections {

    private final ServerStats stats;
    private final Supplier<ServerConfig> config;
    private final Options engineOptions;
    private final Db db;
    private final Keyspace keyspace;
    private final Dispatcher dispatcher;
    private final CommandStats commandStats;
    private final KeyspaceCompactionFilter compactionFilter;
    private final ServerStorage storage;
    private final IntSupplier connectedClients;
    private final IntSupplier listeningPort;

    InfoSections(ServerStats stats, Supplier<ServerConfig> config, Options engineOptions, ServerStorage storage,
                 Keyspace keyspace, Dispatcher dispatcher, CommandStats commandStats,
                 KeyspaceCompactionFilter compactionFilter, IntSupplier connectedClients, IntSupplier listeningPort) {
        this.stats = stats;
        this.config = config;
        this.engineOptions = engineOptions;
        this.storage = storage;
        this.db = storage.db();
        this.keyspace = keyspace;
        this.dispatcher = dispatcher;
        this.commandStats = commandStats;
        this.compactionFilter = compactionFilter;
        this.connectedClients = connectedClients;
        this.listeningPort = listeningPort;
    }

    /** Every section INFO knows, by name. */
    List<InfoSource> all() {
        return List.of(
                InfoSource.of("server", this::serverSection),
                InfoSource.of("clients", this::clientsSection),
                InfoSource.of("memory", this::memorySection),
                InfoSource.of("persistence", this::persistenceSection),
                InfoSource.of("stats", this::statsSection),
                InfoSource.of("replication", f -> f.putAll(storage.replicationInfo())),
                InfoSource.of("cpu", InfoSections::cpuSection),
                InfoSource.of("commandstats", f -> f.putAll(commandStats.commandLines())),
                InfoSource.of("errorstats", f -> f.putAll(commandStats.errorLines())),
                InfoSource.of("cluster", f -> {
                    f.put("cluster_enabled", storage.routing().replicated() ? 1 : 0);
                    f.putAll(storage.routing().clusterInfo());
                }),
                InfoSource.of("keyspace", this::keyspaceSection),
                InfoSource.of("varve", this::engineSection),
                InfoSource.of("engine", this::engineSection)); // the same fields, for those who ask by what they hold
    }

    private void serverSection(Map<String, Object> f) {
        ReplicaRouting routing = storage.routing();
        long uptime = (System.currentTimeMillis() - stats.startedAtMillis()) / 1000;
        f.put("redis_version", RedisServer.VERSION);
        f.put("varve_version", "0.1.0");
        f.put("redis_mode", routing.replicated() ? "cluster" : "standalone");
        f.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        f.put("arch_bits", "64");
        f.put("java_version", System.getProperty("java.version"));
        f.put("process_id", ProcessHandle.current().pid());
        f.put("tcp_port", listeningPort.getAsInt());
        f.put("server_time_usec", System.currentTimeMillis() * 1000);
        f.put("uptime_in_seconds", uptime);
        f.put("uptime_in_days", uptime / 86400);
        f.put("io_threads_active", config.get().ioThreads());
        f.put("config_file", config.get().configFile() == null ? "" : config.get().configFile());
    }

    private void clientsSection(Map<String, Object> f) {
        f.put("connected_clients", connectedClients.getAsInt());
        f.put("maxclients", config.get().maxClients());
        f.put("blocked_clients", keyspace.blocking().blockedCount());
        f.put("tracking_clients", dispatcher.tracking().clientCount());
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
        f.put("engine_write_buffer_size", engineOptions.writeBufferSize());
    }

    private void persistenceSection(Map<String, Object> f) {
        f.put("loading", 0);
        f.put("aof_enabled", 1);
        f.put("appendfsync", config.get().fsync().name().toLowerCase(java.util.Locale.ROOT));
        f.put("rdb_changes_since_last_save", 0);
        f.put("recovery_duration_ms", stats.recoveryMillis());
        f.put("wal_recovery_mode", engineOptions.walRecovery().name().toLowerCase(java.util.Locale.ROOT));
    }

    private void statsSection(Map<String, Object> f) {
        Keyspace ks = keyspace;
        f.put("total_connections_received", stats.connectionsReceived());
        f.put("total_commands_processed", stats.commands());
        f.put("total_net_input_bytes", stats.inputBytes());
        f.put("total_net_output_bytes", stats.replyBytes());
        f.put("rejected_connections", stats.connectionsRejected());
        f.put("client_output_buffer_limit_disconnections", stats.outputLimitDisconnections());
        f.put("pubsub_channels", dispatcher.pubSub().channelCount());
        f.put("pubsub_patterns", dispatcher.pubSub().patternCount());
        f.put("tracking_total_keys", dispatcher.tracking().keyCount());
        f.put("tracking_total_items", dispatcher.tracking().itemCount());
        f.put("tracking_total_prefixes", dispatcher.tracking().prefixCount());
        f.put("total_error_replies_protocol", stats.protocolErrors());
        f.put("total_error_replies", commandStats.totalErrorReplies());
        f.put("expired_keys", ks.expiredKeysRemoved());
        f.put("keyspace_hits", ks.hits());
        f.put("keyspace_misses", ks.misses());
        f.put("total_writes", ks.commits());
        f.put("total_reads_answered_inline", stats.inlineReads());
        f.put("total_sets_committed_per_event_loop", stats.sharedSets());
        f.put("total_set_runs_committed_on_event_loop", stats.sharedSetRunsOnLoop());
        f.put("total_set_runs_handed_off", stats.sharedSetRunsHandedOff());
        f.put("total_writes_committed_in_key_runs", stats.keyRunCommands());
    }

    /**
     * CPU seconds of the process, split into user and system time where the OS tells ({@code /proc/self/stat}
     * on Linux); elsewhere the JVM's total is reported as user time.
     */
    private static void cpuSection(Map<String, Object> f) {
        double[] userSystem = ProcessCpu.userAndSystemSeconds();
        f.put("used_cpu_sys", String.format(java.util.Locale.ROOT, "%.6f", userSystem[1]));
        f.put("used_cpu_user", String.format(java.util.Locale.ROOT, "%.6f", userSystem[0]));
        f.put("used_cpu_sys_children", "0.000000");
        f.put("used_cpu_user_children", "0.000000");
    }

    private void keyspaceSection(Map<String, Object> f) {
        Keyspace ks = keyspace;
        for (int i = 0; i < ks.databases().count(); i++) {
            long[] counts = ks.inLogical(i).countKeys();
            if (counts[0] > 0) {
                f.put("db" + i, "keys=" + counts[0] + ",expires=" + counts[1] + ",avg_ttl=" + counts[2]);
            }
        }
    }

    private void engineSection(Map<String, Object> f) {
        f.put("engine", "varve-lsm");
        f.put("engine_dir", config.get().dir().toAbsolutePath());
        try (Snapshot s = db.snapshot()) {
            f.put("engine_last_sequence", s.sequence());
        }
        long[] files = dirUsage(config.get().dir());
        f.put("engine_files", files[0]);
        f.put("engine_disk_bytes", files[1]);
        f.put("engine_unordered_write", engineOptions.unorderedWrite() ? 1 : 0);
        f.put("compaction_expired_keys", compactionFilter.metadataRemoved());
        f.put("compaction_dead_subkeys", compactionFilter.subkeysRemoved());
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

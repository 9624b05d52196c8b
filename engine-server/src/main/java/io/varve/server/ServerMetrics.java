package io.varve.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.varve.server.command.CommandSpec;
import io.varve.server.command.CommandTable;
import io.varve.server.command.Dispatcher;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Server meters in a Prometheus registry: a latency histogram per command (its count is the number of calls),
 * failures per command, rejected requests, connections. Meters are created up front for the known commands
 * only; unknown command names are counted together, so clients cannot create unbounded label values.
 * The same registry carries the engine's meters (given to it through {@code Options.withMeterRegistry}) and
 * Micrometer's standard JVM and process binders, under the names Prometheus users know
 * ({@code jvm_memory_used_bytes}, {@code jvm_gc_pause_seconds}, {@code process_cpu_usage},
 * {@code process_open_fds}, {@code process_uptime_seconds} ...), and in replicated mode the meters of each Raft
 * group the node holds ({@code replica.RaftGroupMeters}).
 */
final class ServerMetrics implements Dispatcher.Observer, AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Timer> latency = new HashMap<>();
    private final Map<String, Counter> failures = new HashMap<>();
    private final Counter rejected;
    private final Counter connectionsOpened;
    /** Listens to GC notifications until closed. */
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    /** Brings meters read from elsewhere up to date (the Raft groups'); runs on the scraping thread. */
    private volatile Runnable beforeScrape = () -> { };

    ServerMetrics(CommandTable table, IntSupplier connectedClients) {
        for (CommandSpec spec : table.all()) {
            latency.put(spec.name(), Timer.builder("varve.command.duration")
                    .description("Time to execute a command, from dispatch to reply encoded")
                    .tag("command", spec.name())
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(5_000))
                    .maximumExpectedValue(Duration.ofSeconds(10))
                    .register(registry));
            failures.put(spec.name(), Counter.builder("varve.command.errors")
                    .description("Commands that replied with an error")
                    .tag("command", spec.name())
                    .register(registry));
        }
        rejected = Counter.builder("varve.command.rejected")
                .description("Requests refused before running: unknown command, wrong arity, not authenticated")
                .register(registry);
        connectionsOpened = Counter.builder("varve.connections.opened")
                .description("Client connections accepted").register(registry);
        // Micrometer holds a gauge's object weakly; the supplier is a lambda nobody else keeps, so without a
        // strong reference the gauge reads NaN after the next garbage collection.
        Gauge.builder("varve.connections.active", connectedClients, IntSupplier::getAsInt)
                .strongReference(true)
                .description("Client connections open now").register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** Runs {@code refresh} before every scrape, on the scraping thread. */
    void beforeScrape(Runnable refresh) {
        this.beforeScrape = refresh;
    }

    /** The registry the engine publishes its meters in. */
    MeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        gcMetrics.close();
    }

    @Override
    public void executed(CommandSpec spec, long nanos, boolean failed) {
        latency.get(spec.name()).record(nanos, TimeUnit.NANOSECONDS);
        if (failed) {
            failures.get(spec.name()).increment();
        }
    }

    @Override
    public void rejected() {
        rejected.increment();
    }

    void connectionOpened() {
        connectionsOpened.increment();
    }

    /** The Prometheus text exposition of every meter. */
    String scrape() {
        beforeScrape.run();
        return registry.scrape();
    }
}

package io.varve.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.server.command.CommandTable;
import io.varve.server.command.Connection;
import io.varve.server.command.Dispatcher;
import io.varve.server.command.ReplicaRouting;
import io.varve.server.resp.RespDecoder;
import io.varve.server.store.ExpirySweeper;
import io.varve.server.store.Keyspace;
import io.varve.server.store.KeyspaceCompactionFilter;
import io.varve.server.store.ScanCursors;
import io.varve.server.types.DataTypes;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The Redis-protocol server: opens the engine, listens, and on {@link #close()} shuts down in order.
 *
 * <h2>Life cycle</h2>
 * {@link #start()} opens the database (replaying its log, timed and logged), builds the keyspace, binds every
 * address and starts the background tasks (everysec fsync, active expiry). {@link #close()} — from SHUTDOWN,
 * a JVM shutdown hook or an embedding program — stops accepting, stops reading from clients, waits for the
 * commands already received to finish and be answered, closes the connections, flushes and closes the
 * engine. It is idempotent and every caller returns only once the server is fully stopped.
 *
 * <h2>Threads</h2>
 * One acceptor thread, {@code io-threads} NIO event loops (decode, encode, socket I/O; never the engine),
 * a virtual thread per connection while it has commands to run (see {@link ClientSession}), and one
 * scheduler thread for background work.
 */
public final class RedisServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisServer.class.getName());
    public static final String VERSION = "7.2.0";

    /** Replaced whole by CONFIG SET (see {@link #configSet}). */
    private final RuntimeConfig runtimeConfig;
    private final LongSupplier clock;
    private final Predicate<InetAddress> isLoopback;
    private final Options engineOptions;
    private final boolean activeExpiry;
    private final ServerStats stats = new ServerStats();
    private final Map<Long, ClientSession> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger connected = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final List<Channel> listeners = new ArrayList<>();

    private Db db;
    /** The database, or in replicated mode the Raft member, the keyspace lives in. */
    private ServerStorage storage;
    private final KeyspaceCompactionFilter compactionFilter;
    private Keyspace keyspace;
    private DataTypes types;
    private final ScanCursors cursors = new ScanCursors();
    private Dispatcher dispatcher;
    /** Redis's order between blocking commands and later commands of other connections on their keys. */
    private ArrivalOrder arrivals;
    private ServerMetrics metrics;
    private CommandStats commandStats;
    private InfoReport info;
    private MetricsEndpoint metricsEndpoint;
    private EventLoopGroup acceptor;
    private EventLoopGroup workers;
    /** One shared run of lone SETs per worker event loop (see {@link EventLoopSets}). */
    private final ConcurrentHashMap<EventLoop, EventLoopSets> loopSets = new ConcurrentHashMap<>();
    /** Null: each shared SET run commits on a virtual thread of its own. */
    private final Executor loopSetCommitter;
    private final boolean commitSharedSetsOnLoop;
    private ScheduledExecutorService background;
    private SslContext sslContext;
    private final CommandContext context = new CommandContext(this);

    private RedisServer(Builder b) {
        this.runtimeConfig = new RuntimeConfig(b.config);
        this.clock = b.clock;
        this.isLoopback = b.isLoopback;
        this.engineOptions = b.engineOptions != null ? b.engineOptions
                : Options.defaults().withWriteBufferSize(b.config.writeBufferSize());
        this.compactionFilter = new KeyspaceCompactionFilter(ServerStorage.compactionClock(b.config, clock));
        this.activeExpiry = b.activeExpiry;
        this.loopSetCommitter = b.loopSetCommitter;
        this.commitSharedSetsOnLoop = b.commitSharedSetsOnLoop;
    }

    public static Builder builder(ServerConfig config) {
        return new Builder(config);
    }

    /** Options beyond the configuration file: injectable clock and loopback test, engine options. */
    public static final class Builder {
        private final ServerConfig config;
        private LongSupplier clock = System::currentTimeMillis;
        private Predicate<InetAddress> isLoopback = InetAddress::isLoopbackAddress;
        private Options engineOptions;
        private boolean activeExpiry = true;
        private Executor loopSetCommitter;
        private boolean commitSharedSetsOnLoop = true;

        private Builder(ServerConfig config) {
            this.config = config;
        }

        /** The time in Unix milliseconds that expiry uses (tests advance a fake one instead of sleeping). */
        public Builder clock(LongSupplier millis) {
            this.clock = millis;
            return this;
        }

        /** Which peers count as local for protected mode (tests make loopback look remote). */
        public Builder loopbackPredicate(Predicate<InetAddress> predicate) {
            this.isLoopback = predicate;
            return this;
        }

        /** Engine options; the server adds its own compaction filter (expiry and dead subkeys) to them. */
        public Builder engineOptions(Options options) {
            this.engineOptions = options;
            return this;
        }

        /** Tests turn the active expiry sweep off to see what the compaction filter alone removes. */
        Builder activeExpiry(boolean enabled) {
            this.activeExpiry = enabled;
            return this;
        }

        /** Tests hold back the commits of shared SET runs (see {@link EventLoopSets}); default: a virtual thread each. */
        Builder loopSetCommitter(Executor committer) {
            this.loopSetCommitter = committer;
            return this;
        }

        /** Tests send every shared SET run to the committer, as when the event loop may not commit it. */
        Builder commitSharedSetsOnLoop(boolean enabled) {
            this.commitSharedSetsOnLoop = enabled;
            return this;
        }

        public RedisServer build() {
            return new RedisServer(this);
        }
    }

    /** Opens the engine and starts listening. On failure everything started so far is released. */
    public RedisServer start() throws IOException {
        try {
            startEngine();
            startNetwork();
            startBackgroundTasks();
            return this;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void startEngine() throws IOException {
        LOG.log(System.Logger.Level.INFO, "opening database in {0} (replaying the write-ahead log)",
                config().dir().toAbsolutePath());
        if (config().metricsPort() > 0) {
            metrics = new ServerMetrics(CommandTable.standard(), connected::get);
        }
        long t0 = System.nanoTime();
        Options options = engineOptions.withCompactionFilter(compactionFilter);
        if (metrics != null) {
            options = options.withMeterRegistry(metrics.registry()); // the engine's meters on the same endpoint
        }
        storage = ServerStorage.open(config(), options, () -> config().requirePass());
        db = storage.db();
        if (metrics != null) {
            metrics.beforeScrape(storage.groupMeters(metrics.registry()));
        }
        compactionFilter.attach(db);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        stats.recoveryMillis(millis);
        keyspace = storage.newKeyspace(config(), clock);
        compactionFilter.physicalDatabases(keyspace.databases().physicalCount());
        types = new DataTypes(keyspace, () -> config().protoMaxBulkLength());
        LOG.log(System.Logger.Level.INFO, "database ready in {0} ms", millis);
        commandStats = new CommandStats(metrics == null ? Dispatcher.Observer.NONE : metrics);
        dispatcher = new Dispatcher(CommandTable.standard(), context, commandStats);
        arrivals = new ArrivalOrder(dispatcher.table());
        storage.onApplied(dispatcher.watchMarker());
        dispatcher.slowLog().configure(config().slowlogSlowerThan(), config().slowlogMaxLength());
        dispatcher.keyspaceNotifier().configure(config().notifyKeyspaceEvents());
        info = new InfoReport(new InfoSections(stats, this::config, engineOptions, storage, keyspace, dispatcher,
                commandStats, compactionFilter, connected::get, this::listeningPort).all());
    }

    private void startNetwork() throws IOException {
        if (config().tlsCertFile() != null) {
            sslContext = SslContextBuilder.forServer(config().tlsCertFile().toFile(), config().tlsKeyFile().toFile())
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .build();
        }
        acceptor = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(config().ioThreads(), NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptor, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, config().tcpBacklog())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 << 10, 2 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        initClient(ch);
                    }
                });
        int port = config().port();
        for (String address : config().bindAddresses()) {
            InetSocketAddress where = new InetSocketAddress(address, port);
            try {
                Channel listener = bootstrap.bind(where).sync().channel();
                listeners.add(listener);
                port = ((InetSocketAddress) listener.localAddress()).getPort(); // port 0: reuse the picked one
                LOG.log(System.Logger.Level.INFO, "listening on {0}:{1,number,#}{2}", address, port,
                        sslContext != null ? " (TLS)" : "");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while binding " + where, e);
            } catch (Exception e) {
                throw new IOException("cannot listen on " + address + ":" + port + " (" + e.getMessage()
                        + "); is another server using it? Pick another with --port", e);
            }
        }
        if (metrics != null) {
            metricsEndpoint = MetricsEndpoint.start(new InetSocketAddress(config().bindAddresses().getFirst(),
                    config().metricsPort()), metrics);
            LOG.log(System.Logger.Level.INFO, "metrics on http://{0}:{1,number,#}/metrics",
                    config().bindAddresses().getFirst(), metricsEndpoint.port());
        }
    }

    private void initClient(SocketChannel ch) {
        boolean needsAuth = config().requirePass() != null;
        Connection connection = new Connection(ch.remoteAddress(), ch.localAddress(), !needsAuth);
        RespDecoder decoder = new RespDecoder(runtimeConfig.decoderLimits(), connection::authenticated);
        EventLoopSets loopSets = this.loopSets.computeIfAbsent(ch.eventLoop(),
                loop -> new EventLoopSets(loop, dispatcher, stats, loopSetCommitter, commitSharedSetsOnLoop));
        ClientSession session = new ClientSession(ch, connection, dispatcher, decoder, stats, loopSets, arrivals);
        session.attachPushes(new PushOutbox(ch, connection, session, runtimeConfig::pubsubOutputLimit,
                stats::outputLimitDisconnection));
        ChannelPipeline p = ch.pipeline();
        if (sslContext != null) {
            p.addLast("tls", sslContext.newHandler(ch.alloc()));
        }
        p.addLast("count", new InputCounter(stats));
        p.addLast("decoder", decoder);
        p.addLast("client", new ConnectionHandler(this, session));
    }

    /** Counts bytes received (after TLS) for INFO; passes everything on untouched. */
    private static final class InputCounter extends ChannelInboundHandlerAdapter {
        private final ServerStats stats;

        InputCounter(ServerStats stats) {
            this.stats = stats;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b) {
                stats.inputBytes(b.readableBytes());
            }
            ctx.fireChannelRead(msg);
        }
    }

    private void startBackgroundTasks() {
        background = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-background");
            t.setDaemon(true);
            return t;
        });
        background.execute(() -> guarded("scripting warm-up", io.varve.server.scripting.Scripting::warmUp));
        // Scheduled whatever appendfsync is now: CONFIG SET may switch to everysec later.
        long[] lastSynced = {keyspace.commits()};
        background.scheduleWithFixedDelay(() -> guarded("everysec fsync", () -> {
            long commits = keyspace.commits();
            if (config().fsync() == ServerConfig.Fsync.EVERYSEC && commits != lastSynced[0]) {
                keyspace.syncLog();
                lastSynced[0] = commits;
            }
        }), 1, 1, TimeUnit.SECONDS);
        background.scheduleWithFixedDelay(() -> guarded("idle clients", this::closeIdleClients),
                1, 1, TimeUnit.SECONDS);
        if (activeExpiry) {
            ExpirySweeper sweeper = new ExpirySweeper(keyspace, (database, key) -> {
                dispatcher.keyspaceNotifier()
                        .notify(io.varve.server.pubsub.KeyspaceNotifier.EXPIRED, "expired", key, database);
                dispatcher.tracking().expired(key);
            });
            // Replicated, only the leader sweeps: its deletes go through the log like any write.
            background.scheduleWithFixedDelay(() -> guarded("active expiry", () -> {
                if (storage.mayWrite()) {
                    sweeper.sweep(500);
                }
            }),
                    100, 100, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Closes connections that sent no command for {@code timeout} seconds, checked once a second as Redis's
     * cron does, so CONFIG SET timeout applies to every connection at once. A connection with a command
     * running, a client parked in a blocking command, or a subscriber (which waits for messages, not
     * commands), is never idle.
     */
    private void closeIdleClients() {
        long timeoutMillis = config().timeoutSeconds() * 1000L;
        if (timeoutMillis <= 0) {
            return;
        }
        long now = System.currentTimeMillis();
        for (ClientSession s : sessions.values()) {
            Connection c = s.connection();
            if (now - c.lastCommandAtMillis() >= timeoutMillis && s.idle() && !s.parked() && !c.subscriptions().any()) {
                LOG.log(System.Logger.Level.DEBUG, "closing idle client {0}", c.id());
                s.channel().close();
            }
        }
    }

    private void guarded(String what, Runnable task) {
        try {
            if (!stopping.get()) {
                task.run();
            }
        } catch (RuntimeException e) {
            if (!stopping.get()) {
                LOG.log(System.Logger.Level.ERROR, what + " failed", e);
            }
        }
    }

    // ---- admission, used by ConnectionHandler on the event loop

    /** Null to admit the connection, else the raw reply to send before closing it. */
    String admit(ClientSession session) {
        Connection c = session.connection();
        stats.connectionReceived();
        if (stopping.get()) {
            stats.connectionRejected();
            return "-ERR server is shutting down\r\n";
        }
        InetAddress peer = c.remote() == null ? null : c.remote().getAddress();
        if (config().protectedMode() && config().requirePass() == null && (peer == null || !isLoopback.test(peer))) {
            stats.connectionRejected();
            return ConnectionHandler.PROTECTED_MODE_ERROR;
        }
        if (connected.incrementAndGet() > config().maxClients()) {
            connected.decrementAndGet();
            stats.connectionRejected();
            return "-ERR max number of clients reached\r\n";
        }
        sessions.put(c.id(), session);
        if (metrics != null) {
            metrics.connectionOpened();
        }
        return null;
    }

    void release(ClientSession session) {
        if (sessions.remove(session.connection().id()) != null) {
            connected.decrementAndGet();
        }
    }

    boolean stopping() {
        return stopping.get();
    }

    ServerStats stats() {
        return stats;
    }

    // ---- queries

    /** The port the RESP listener is bound to (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) listeners.getFirst().localAddress()).getPort();
    }

    /** The metrics endpoint's port, or -1 when metrics are off. */
    public int metricsPort() {
        return metricsEndpoint == null ? -1 : metricsEndpoint.port();
    }

    public ServerConfig config() {
        return runtimeConfig.current();
    }

    /** Blocks until the server has stopped (after SHUTDOWN or {@link #close()}). */
    public void awaitTermination() throws InterruptedException {
        stopped.await();
    }

    /** Waits at most {@code timeout} for the server to stop; returns whether it did. */
    public boolean awaitTermination(java.time.Duration timeout) throws InterruptedException {
        return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SHUTDOWN: stop from another thread, since the caller is one of the commands being waited for. */
    public void requestShutdown() {
        Thread.ofPlatform().name("varve-shutdown").start(this::close);
    }

    // ---- shutdown

    @Override
    public void close() {
        if (!stopping.compareAndSet(false, true)) {
            awaitQuietly();
            return;
        }
        try {
            LOG.log(System.Logger.Level.INFO, "shutting down: no new connections, finishing commands in flight");
            for (Channel listener : listeners) {
                listener.close().awaitUninterruptibly();
            }
            for (ClientSession s : sessions.values()) {
                s.channel().config().setAutoRead(false);
            }
            waitForInFlightCommands(30_000);
            for (ClientSession s : sessions.values()) {
                s.channel().close().awaitUninterruptibly(1000);
            }
            if (background != null) {
                // No interrupt: an interrupted fsync would close the log's channel under the engine.
                background.shutdown();
                awaitExecutor(background);
            }
            if (metricsEndpoint != null) {
                metricsEndpoint.stop();
            }
            if (metrics != null) {
                metrics.close();
            }
            if (workers != null) {
                workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            }
            if (acceptor != null) {
                acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            }
            if (storage != null) {
                storage.close();
            }
        } finally {
            stopped.countDown();
        }
    }

    /** Waits, bounded, until every connection has answered the commands it received. */
    private void waitForInFlightCommands(long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        while (System.nanoTime() < deadline) {
            boolean quiet = sessions.values().stream().allMatch(ClientSession::idle);
            if (quiet) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        LOG.log(System.Logger.Level.WARNING, "commands still running after {0} ms; closing anyway", timeoutMillis);
    }

    private static void awaitExecutor(ScheduledExecutorService executor) {
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitQuietly() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- run-time configuration

    /**
     * CONFIG SET: validates all settings together, then publishes the new configuration and applies what
     * running parts cache. Connections keep the decoder limits they were accepted with; everything else
     * (timeout, maxclients, requirepass, appendfsync, output buffer and slow log limits) applies at once.
     */
    void configSet(Map<String, String> settings) {
        ServerConfig next = runtimeConfig.set(settings);
        keyspace.syncEveryWrite(next.fsync() == ServerConfig.Fsync.ALWAYS);
        dispatcher.slowLog().configure(next.slowlogSlowerThan(), next.slowlogMaxLength());
        dispatcher.keyspaceNotifier().configure(next.notifyKeyspaceEvents());
    }

    /** CONFIG REWRITE: the configuration file the server started with gets the running configuration. */
    void configRewrite() {
        ServerConfig current = config();
        if (current.configFile() == null) {
            throw new io.varve.server.resp.RedisError("ERR The server is running without a config file");
        }
        try {
            ConfigRewrite.rewrite(java.nio.file.Path.of(current.configFile()), current.asMap(), ServerConfig.defaultValues());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "CONFIG REWRITE failed: {0}", e.toString());
            throw new io.varve.server.resp.RedisError("ERR Rewriting config file: " + e.getMessage());
        }
    }

    /** CONFIG RESETSTAT. */
    void resetStats() {
        stats.reset();
        commandStats.reset();
        dispatcher.latency().reset();
        keyspace.resetStats();
    }

    /** The connections' sessions, for CLIENT LIST and CLIENT KILL. */
    Collection<ClientSession> sessions() {
        return sessions.values();
    }

    DataTypes types() {
        return types;
    }

    ScanCursors scanCursors() {
        return cursors;
    }

    /** Where commands may run: a replica redirects some of them. */
    ReplicaRouting routing() {
        return storage.routing();
    }

    /** INFO replication's fields (tests read them too). */
    Map<String, Object> replicationInfo() {
        return storage.replicationInfo();
    }

    Keyspace keyspace() {
        return keyspace;
    }

    /** The engine the keyspace lives in. */
    Db db() {
        return db;
    }

    /** INFO's text for the sections asked for. */
    String info(List<String> sections) {
        return info.render(sections);
    }

    private int listeningPort() {
        return listeners.isEmpty() ? config().port() : port();
    }
}

package io.varve.server.command;

import io.varve.server.pubsub.Subscriptions;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the server knows about one client connection: identity, negotiated protocol, authentication, and the
 * bookkeeping CLIENT LIST shows. Written by that connection's commands (which run one at a time) and read
 * by others (CLIENT LIST, INFO), hence volatile fields.
 */
public final class Connection {

    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final long createdAtMillis = System.currentTimeMillis();
    private volatile String name;
    private volatile String libName;
    private volatile String libVersion;
    private volatile int protocol = 2;
    private volatile boolean authenticated;
    private volatile long lastCommandAtMillis = createdAtMillis;
    private volatile String lastCommand = "NULL";
    private volatile boolean closeAfterReply;
    private volatile boolean closeWithoutReply;
    private volatile Parking parking;
    private final MultiState transaction = new MultiState();
    private final Subscriptions subscriptions = new Subscriptions();
    /** The logical database SELECT chose. */
    private volatile int database;
    /** READONLY: this connection accepts stale reads from a replica that is not the leader. */
    private volatile boolean replicaReads;
    /** The blocking command this connection parked last, for CLIENT UNBLOCK; its wait may be over. */
    private volatile BlockedClient blocked;
    /** CLIENT REPLY OFF: commands run without replies until CLIENT REPLY ON. */
    private volatile boolean repliesOff;
    /** CLIENT REPLY SKIP: the next command runs without its reply. */
    private volatile boolean skipNextReply;

    public Connection(InetSocketAddress remote, InetSocketAddress local, boolean authenticated) {
        this.remote = remote;
        this.local = local;
        this.authenticated = authenticated;
    }

    public long id() {
        return id;
    }

    public InetSocketAddress remote() {
        return remote;
    }

    public InetSocketAddress local() {
        return local;
    }

    public long createdAtMillis() {
        return createdAtMillis;
    }

    public String name() {
        return name;
    }

    public void name(String newName) {
        this.name = newName;
    }

    public String libName() {
        return libName;
    }

    public String libVersion() {
        return libVersion;
    }

    public void libName(String value) {
        this.libName = value;
    }

    public void libVersion(String value) {
        this.libVersion = value;
    }

    public int protocol() {
        return protocol;
    }

    public void protocol(int version) {
        this.protocol = version;
    }

    public boolean authenticated() {
        return authenticated;
    }

    public void authenticated(boolean value) {
        this.authenticated = value;
    }

    public long lastCommandAtMillis() {
        return lastCommandAtMillis;
    }

    public String lastCommand() {
        return lastCommand;
    }

    void commandStarted(String command) {
        this.lastCommand = command;
    }

    /** Commands are about to run; the time is taken once per batch of them, not per command. */
    public void touch(long nowMillis) {
        this.lastCommandAtMillis = nowMillis;
    }

    public Subscriptions subscriptions() {
        return subscriptions;
    }

    /** RESP2 with a subscription: only the subscription commands, PING, QUIT and RESET may run. */
    public boolean inSubscriberMode() {
        return protocol == 2 && subscriptions.any();
    }

    public MultiState transaction() {
        return transaction;
    }

    public int database() {
        return database;
    }

    public void database(int index) {
        this.database = index;
    }

    /** Reply to this command, then close (QUIT). */
    public boolean closeAfterReply() {
        return closeAfterReply;
    }

    public void requestCloseAfterReply() {
        this.closeAfterReply = true;
    }

    /** Close without replying (SHUTDOWN, as Redis does). */
    public boolean closeWithoutReply() {
        return closeWithoutReply;
    }

    public void requestCloseWithoutReply() {
        this.closeWithoutReply = true;
    }

    /** Where a blocking command parks; null when this connection cannot park. */
    public Parking parking() {
        return parking;
    }

    public void parking(Parking value) {
        this.parking = value;
    }

    static String address(InetSocketAddress a) {
        if (a == null) {
            return "";
        }
        String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** One line of CLIENT LIST (without the trailing newline). */
    public String describe(long nowMillis) {
        String n = name;
        return "id=" + id + " addr=" + address(remote) + " laddr=" + address(local) + " fd=-1"
                + " name=" + (n == null ? "" : n)
                + " age=" + (nowMillis - createdAtMillis) / 1000
                + " idle=" + (nowMillis - lastCommandAtMillis) / 1000
                + " flags=" + (transaction.active() ? "x" : "N") + " db=" + database
                + " sub=" + subscriptions.count(Subscriptions.Kind.CHANNEL)
                + " psub=" + subscriptions.count(Subscriptions.Kind.PATTERN)
                + " ssub=" + subscriptions.count(Subscriptions.Kind.SHARD) + " multi="
                + transaction.queuedCount() + " watch=" + transaction.watchedCount() + " qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0"
                + " rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r"
                + " cmd=" + lastCommand + " user=default redir=-1 resp=" + protocol
                + " lib-name=" + (libName == null ? "" : libName)
                + " lib-ver=" + (libVersion == null ? "" : libVersion);
    }

    /** CLIENT REPLY ON, OFF or SKIP. */
    void replyMode(boolean off, boolean skipNext) {
        repliesOff = off;
        skipNextReply = skipNext;
    }

    /** Whether CLIENT REPLY OFF or SKIP is in force, so replies must pass the one place that can drop them. */
    boolean repliesAltered() {
        return repliesOff || skipNextReply;
    }

    void blocked(BlockedClient command) {
        blocked = command;
    }

    /** CLIENT UNBLOCK of this connection: whether a blocking command of it was waiting and now is not. */
    boolean unblock(boolean withError) {
        BlockedClient command = blocked;
        return command != null && command.unblock(withError);
    }

    boolean repliesOff() {
        return repliesOff;
    }

    /** Whether the command about to run is to run silently; takes a pending SKIP. */
    boolean takeSilence() {
        if (skipNextReply) {
            skipNextReply = false;
            return true;
        }
        return repliesOff;
    }

    public boolean replicaReads() {
        return replicaReads;
    }

    void replicaReads(boolean allowed) {
        this.replicaReads = allowed;
    }
}

package io.varve.server.command;

import io.varve.server.resp.Reply;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Client-side caching (CLIENT TRACKING): which clients read which keys, and the invalidation messages a write
 * owes them, as Redis 7 sends them.
 *
 * <p>Default mode remembers, per key, the ids of the clients that read it; a write of the key sends each of them
 * one message naming the key and forgets the key (a client re-reads to be told again). Broadcast mode keeps no
 * keys: a write of a key under one of a client's prefixes is gathered per client and prefix, and the gathered
 * keys go out as one message per prefix when the dispatcher {@link #flushBroadcasts() flushes} after the
 * request (so a MULTI or an MSET is one message, as Redis sends them from its event loop). FLUSHDB and FLUSHALL
 * send every tracking client a null invalidation ("drop everything") and empty the table.
 *
 * <p>A message goes to the client itself (a RESP3 push) or to its REDIRECT target: a RESP3 push there too, or,
 * to a RESP2 target subscribed to {@code __redis__:invalidate}, a message on that channel. A target that is gone
 * marks the client's redirect broken and tells a RESP3 client so ({@code tracking-redir-broken}). Messages go
 * through the target's push outbox, so they follow any reply the target is owed.
 *
 * <p>Thread-safe: the key table and the pending broadcasts are guarded by this object's monitor; the tracking
 * clients sit in a concurrent map so the per-command check {@link #active()} takes no lock. Messages are sent
 * after the monitor is released. Keys are not separated by database, as Redis's table does not separate them.
 */
public final class TrackingTable {

    private static final byte[] INVALIDATE = "invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REDIRECT_BROKEN = "tracking-redir-broken".getBytes(StandardCharsets.US_ASCII);

    private static final Set<String> READ_ONLY_SCRIPTS = Set.of("eval_ro", "evalsha_ro", "fcall_ro");

    private final Supplier<List<Connection>> connections;
    private final Map<Long, TrackedClient> clients = new ConcurrentHashMap<>();
    /** Default mode: key to the ids of the clients that read it since it last changed. */
    private final Map<Key, Set<Long>> keys = new HashMap<>();
    /** Broadcast mode: keys written in this request, per client and prefix. */
    private final Map<Long, Map<Key, Set<Key>>> pending = new LinkedHashMap<>();

    TrackingTable(Supplier<List<Connection>> connections) {
        this.connections = connections;
    }

    /** Whether any client tracks: commands then take the paths that record reads and send invalidations. */
    public boolean active() {
        return !clients.isEmpty();
    }

    TrackedClient of(Connection connection) {
        return clients.get(connection.id());
    }

    /** CLIENT TRACKING ON: replaces the client's options (the caller checked that the switch is allowed). */
    void enable(TrackedClient client) {
        clients.put(client.connection.id(), client);
    }

    /** CLIENT TRACKING OFF, or the connection closed. */
    void disable(Connection connection) {
        if (clients.remove(connection.id()) != null && clients.isEmpty()) {
            synchronized (this) {
                keys.clear();
                pending.clear();
            }
        }
    }

    /** Whether a connection with this id exists (a REDIRECT target must). */
    boolean connected(long id) {
        return find(id) != null;
    }

    /**
     * After a command of {@code connection} ran: a read command of a default-mode client records its keys, and the
     * one-command CACHING choice ends unless {@link #keepsCachingChoice} keeps it.
     */
    void afterCommand(CommandSpec effective, Connection connection, byte[][] args, boolean failed) {
        ScriptReads script = SCRIPT.get();
        if (script != null && script.inside) {
            script.read |= effective.has(CommandFlag.READONLY); // the script's declared keys stand for its reads
            return;
        }
        boolean scriptRead = false;
        if (script != null) {
            scriptRead = script.read;
            SCRIPT.remove();
        }
        TrackedClient client = clients.get(connection.id());
        if (client == null) {
            return;
        }
        // A read-only script command (EVAL_RO, ...) is judged by what its script ran, as any script is.
        boolean reads = effective.has(CommandFlag.READONLY) && !READ_ONLY_SCRIPTS.contains(effective.name());
        if (!failed && (reads || scriptRead) && client.tracksReads()) {
            List<Key> read = new ArrayList<>();
            try {
                for (KeySpec spec : effective.keySpecs()) {
                    spec.forEachKey(args, i -> read.add(new Key(args[i])));
                }
            } catch (KeySpec.InvalidKeyArguments malformed) {
                return; // the command succeeded, so this does not happen; nothing to record
            }
            synchronized (this) {
                for (Key k : read) {
                    keys.computeIfAbsent(k, x -> new HashSet<>()).add(connection.id());
                }
            }
        }
        if (!keepsCachingChoice(effective, connection)) {
            client.cachingChosen = false;
        }
    }

    /**
     * Whether a CLIENT CACHING choice outlives this command: as in Redis, it holds across CLIENT commands and for a
     * whole transaction (MULTI, the queued commands and the ones EXEC runs), and ends after any other command.
     */
    private static boolean keepsCachingChoice(CommandSpec effective, Connection connection) {
        MultiState tx = connection.transaction();
        return effective.name().startsWith("client|") || tx.active() || tx.executing();
    }

    /** What the commands of the script running on this thread read: set by {@link #asScriptCommand}. */
    private static final class ScriptReads {
        boolean inside;
        boolean read;
    }

    private static final ThreadLocal<ScriptReads> SCRIPT = new ThreadLocal<>();

    /**
     * Runs a command a script calls. Its reads record nothing themselves: as in Redis, a script that ran a
     * read-only command records the keys the script declared, when the script command ends.
     */
    void asScriptCommand(Runnable command) {
        if (!active()) {
            command.run();
            return;
        }
        ScriptReads script = SCRIPT.get();
        if (script == null) {
            script = new ScriptReads();
            SCRIPT.set(script);
        }
        boolean was = script.inside;
        script.inside = true;
        try {
            command.run();
        } finally {
            script.inside = was;
        }
    }

    /** {@code key} was written by {@code writer} (null: by no client, e.g. a replicated entry or an expiry). */
    void invalidate(byte[] key, Connection writer) {
        if (clients.isEmpty()) {
            return;
        }
        Key k = new Key(key);
        Long writerId = writer == null ? null : writer.id();
        List<TrackedClient> readers = new ArrayList<>();
        synchronized (this) {
            Set<Long> ids = keys.remove(k);
            if (ids != null) {
                for (long id : ids) {
                    TrackedClient t = clients.get(id);
                    if (t != null && !t.broadcast && !(t.noLoop && writerId != null && writerId == id)) {
                        readers.add(t);
                    }
                }
            }
            for (TrackedClient t : clients.values()) {
                if (!t.broadcast || (t.noLoop && writerId != null && writerId == t.connection.id())) {
                    continue;
                }
                byte[] prefix = t.prefixOf(key);
                if (prefix != null) {
                    pending.computeIfAbsent(t.connection.id(), x -> new LinkedHashMap<>())
                            .computeIfAbsent(new Key(prefix), x -> new LinkedHashSet<>()).add(k);
                }
            }
        }
        for (TrackedClient t : readers) {
            send(t, List.of(key));
        }
    }

    /** The expiry sweep removed {@code key}: its readers and broadcast clients are told at once. */
    public void expired(byte[] key) {
        if (clients.isEmpty()) {
            return;
        }
        invalidate(key, null);
        flushBroadcasts();
    }

    /** FLUSHDB/FLUSHALL: every tracking client drops its whole cache. */
    void invalidateAll() {
        if (clients.isEmpty()) {
            return;
        }
        synchronized (this) {
            keys.clear();
        }
        for (TrackedClient t : clients.values()) {
            send(t, null);
        }
    }

    /** Sends the broadcast invalidations gathered since the last flush, one message per client and prefix. */
    void flushBroadcasts() {
        List<Map.Entry<Long, Map<Key, Set<Key>>>> due;
        synchronized (this) {
            if (pending.isEmpty()) {
                return;
            }
            due = new ArrayList<>(pending.entrySet());
            pending.clear();
        }
        for (Map.Entry<Long, Map<Key, Set<Key>>> e : due) {
            TrackedClient t = clients.get(e.getKey());
            if (t == null) {
                continue;
            }
            for (Set<Key> written : e.getValue().values()) {
                List<byte[]> list = new ArrayList<>(written.size());
                for (Key k : written) {
                    list.add(k.bytes);
                }
                send(t, list);
            }
        }
    }

    /** The message naming {@code keys} (null: all keys) to the client or its redirect target. */
    private void send(TrackedClient t, List<byte[]> invalidated) {
        Connection target = t.connection;
        boolean redirected = t.redirect != 0;
        if (redirected) {
            target = find(t.redirect);
            if (target == null) {
                t.brokenRedirect = true;
                if (t.connection.protocol() > 2) {
                    long id = t.redirect;
                    t.connection.subscriptions().sink().pushReply(r -> {
                        r.pushHeader(2);
                        r.bulk(REDIRECT_BROKEN);
                        r.integer(id);
                    });
                }
                return;
            }
        }
        if (target.protocol() > 2) {
            target.subscriptions().sink().pushReply(r -> {
                r.pushHeader(2);
                r.bulk(INVALIDATE);
                writeKeys(r, invalidated);
            });
        } else if (redirected && target.subscriptions().any()) {
            target.subscriptions().sink().pushReply(r -> {
                r.pushHeader(3);
                r.bulk(MESSAGE);
                r.bulk(CHANNEL);
                writeKeys(r, invalidated);
            });
        }
    }

    private static void writeKeys(Reply r, List<byte[]> invalidated) {
        if (invalidated == null) {
            r.nullArray();
            return;
        }
        r.arrayHeader(invalidated.size());
        for (byte[] k : invalidated) {
            r.bulk(k);
        }
    }

    /**
     * The connection with {@code id}, or null if it is gone. One that sent QUIT counts as gone from its reply
     * on, while its channel still closes: as in Redis, whose client is freed once that reply is written,
     * a write the client makes after reading it finds the redirect broken.
     */
    private Connection find(long id) {
        for (Connection c : connections.get()) {
            if (c.id() == id && !c.closeAfterReply()) {
                return c;
            }
        }
        return null;
    }

    /** INFO's tracking_clients. */
    public int clientCount() {
        return clients.size();
    }

    /** INFO's tracking_total_keys. */
    public synchronized int keyCount() {
        return keys.size();
    }

    /** INFO's tracking_total_items: key and reader pairs. */
    public synchronized long itemCount() {
        long n = 0;
        for (Set<Long> ids : keys.values()) {
            n += ids.size();
        }
        return n;
    }

    /** INFO's tracking_total_prefixes: distinct broadcast prefixes of all clients. */
    public int prefixCount() {
        Set<Key> distinct = new HashSet<>();
        for (TrackedClient t : clients.values()) {
            for (byte[] p : t.prefixes) {
                distinct.add(new Key(p));
            }
        }
        return distinct.size();
    }

    /** Drops keys until at most {@code max} remain, invalidating them for their readers (tracking-table-max-keys). */
    void limit(long max) {
        if (max <= 0 || clients.isEmpty()) {
            return;
        }
        List<Map.Entry<Key, Set<Long>>> evicted = new ArrayList<>();
        synchronized (this) {
            Iterator<Map.Entry<Key, Set<Long>>> it = keys.entrySet().iterator();
            while (keys.size() > max && it.hasNext()) {
                evicted.add(it.next());
                it.remove();
            }
        }
        for (Map.Entry<Key, Set<Long>> e : evicted) {
            for (long id : e.getValue()) {
                TrackedClient t = clients.get(id);
                if (t != null && !t.broadcast) {
                    send(t, List.of(e.getKey().bytes));
                }
            }
        }
    }

    /** A key with value equality. */
    private record Key(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }
}

package io.varve.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.varve.server.command.Connection;
import io.varve.server.command.Dispatcher;
import io.varve.server.command.KeyCommandRun;
import io.varve.server.command.Parking;
import io.varve.server.command.SetCommandRun;
import io.varve.server.resp.ProtocolError;
import io.varve.server.resp.Reply;
import io.varve.server.resp.RespDecoder;
import io.varve.server.resp.RespRequest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs one connection's commands off the event loop, one at a time and in arrival order, and writes their
 * replies in that order.
 *
 * <h2>Threading</h2>
 * The event loop decodes requests and {@link #submit}s them to a lock-free inbox; when the socket read is
 * fully decoded ({@link #readComplete}) it starts the connection's <em>drainer</em> — a virtual thread — if
 * none runs ({@link #running} is the token). So a pipeline that arrived in one read costs one hand-off, not
 * one per command. The drainer takes the requests waiting, executes each (engine calls may block on locks
 * or fsync; only the virtual thread parks), groups runs of plain SETs into one engine commit
 * ({@link SetCommandRun}) and consecutive writes to one key into another ({@link KeyCommandRun}; at most one
 * of the two holds requests at a time, and both are committed before any other request runs), encodes the
 * replies into one buffer and writes it with a single flush. Replies of a
 * pipeline therefore leave in order and in few syscalls, while different connections' commands run in
 * parallel and their writes meet in the engine's commit pipeline, where synced writes share fsyncs.
 *
 * <h2>Answers on the event loop</h2>
 * GETs answered from memory and lone SETs committed in the loop's shared run skip the drainer
 * ({@link EventLoopShortcuts}). The rule that keeps replies in order is {@link #unwritten}: a drainer counts
 * its batch before it takes the first request and uncounts it once the event loop has written the replies,
 * and nothing is answered on the event loop while that count or the queue is non-zero ({@link #owesNothing}).
 *
 * <h2>Back-pressure</h2>
 * When queued requests exceed {@link #PAUSE_REQUESTS} or {@link #PAUSE_BYTES}, reading from the socket
 * stops until the drainer catches up; when the client does not read its replies (channel not writable), the
 * drainer stops taking requests until Netty reports the channel writable again. Memory per connection is
 * so bounded by the decoder's limits plus these thresholds plus the outbound high-water mark.
 *
 * <h2>Blocked commands</h2>
 * A blocking command with nothing to take {@link #park}s: the drainer writes the replies before it and
 * returns <em>keeping</em> the {@link #running} token, so no later request of the connection runs and no
 * thread is held. The parked reply counts in {@link #unwritten}, so nothing is answered inline either. Whoever
 * {@link #resume}s (a writer serving the waiter, or the timeout on the event loop) hands the reply over; it is
 * written once both the drainer's batch is handed to the event loop and the reply exists
 * ({@link #parkArrivals}), so it follows the batch, and then the token is released and draining goes on.
 *
 * <h2>Order with other connections</h2>
 * A blocking command decoded while nothing of the connection is queued or parked is announced to the
 * server's {@link ArrivalOrder}, and every hand-off is stamped with it; before a request runs, the drainer
 * waits for the blocking commands of other connections announced before it on its keys to make their first
 * attempt, and after running an announced command it reports that attempt over. While an announcement is
 * open, nothing is answered on the event loop.
 *
 * <h2>Errors and closing</h2>
 * A {@link ProtocolError} is queued like a request, so the replies before it are still sent; it is answered
 * and the connection closed. QUIT closes after its reply, SHUTDOWN without one. A QUIT gives up the
 * connection's subscriptions, watches and tracking before its reply leaves, as Redis frees its client, although
 * the socket lingers a little longer ({@link LingeringClose}).
 */
final class ClientSession implements Parking {

    static final int PAUSE_REQUESTS = 1024;
    static final long PAUSE_BYTES = 64L << 20;
    private static final int BATCH_REQUESTS = 256;
    private static final int BATCH_BYTES = 256 << 10;

    private final Channel channel;
    private final Connection connection;
    private final Dispatcher dispatcher;
    private final RespDecoder decoder;
    private final ServerStats stats;
    private final SetCommandRun sets;
    /** Consecutive writes to one key, run under its lock held once and committed together. */
    private final KeyCommandRun keyRun;
    /** GETs answered and lone SETs shared on the event loop. */
    private final EventLoopShortcuts shortcuts;
    private final java.util.concurrent.ThreadFactory drainers;
    private final Runnable drain = this::drain;
    private final ArrivalOrder arrivals;
    /** Hand-offs from the event loop: each the requests (and at most one error) of one read, stamped. */
    private final ConcurrentLinkedQueue<HandOff> inbox = new ConcurrentLinkedQueue<>();
    /** This connection's announced blocking commands not yet run, oldest first (see {@link ArrivalOrder}). */
    private final ConcurrentLinkedQueue<ArrivalOrder.Announced> announced = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    /** Event loop only: what the read being decoded produced so far. */
    private List<Object> reading = new ArrayList<>();
    private long readingBytes;
    /** Set while {@link #reading} holds requests not yet handed off, so {@link #idle} counts them. */
    private volatile boolean decoding;
    /** Drainer only (handed between drainers by {@link #running}): the hand-off being executed, and where. */
    private HandOff current;
    private int currentIndex;
    private final AtomicInteger queuedRequests = new AtomicInteger();
    private final AtomicLong queuedBytes = new AtomicLong();
    private volatile boolean readingPaused;
    private volatile boolean closed;
    /**
     * Drainer batches whose replies are not yet written into the channel (counted from before the batch takes
     * its first request). While any is pending or requests are queued, the event loop answers nothing itself.
     */
    private final AtomicInteger unwritten = new AtomicInteger();
    /** Drainer only: the command just executed parked. */
    private boolean parkRequested;
    /** From a park until its reply is written. */
    private volatile boolean parked;
    private volatile Runnable onDisconnect;
    private volatile ByteBuf parkedReply;
    /** Arrivals for the parked reply: the drainer's batch handed over, and the reply made. The second one writes. */
    private final AtomicInteger parkArrivals = new AtomicInteger();
    /** Event loop only: pub/sub messages held back until the replies owed before them are written. */
    private final ArrayDeque<ByteBuf> heldPushes = new ArrayDeque<>();
    private PushOutbox pushes;

    /** One read's requests, and the {@link ArrivalOrder#stamp} of their hand-off. */
    private record HandOff(List<Object> items, long stamp) {
    }

    ClientSession(Channel channel, Connection connection, Dispatcher dispatcher, RespDecoder decoder, ServerStats stats,
                  EventLoopSets loopSets, ArrivalOrder arrivals) {
        this.channel = channel;
        this.arrivals = arrivals;
        this.connection = connection;
        this.decoder = decoder;
        this.dispatcher = dispatcher;
        this.stats = stats;
        this.sets = dispatcher.newSetRun();
        this.keyRun = dispatcher.newKeyRun(stats::keyRunCommitted);
        this.shortcuts = new EventLoopShortcuts(this, channel, connection, dispatcher, stats, loopSets);
        this.drainers = Thread.ofVirtual().name("varve-client-" + connection.id()).factory();
        connection.parking(this);
    }

    Connection connection() {
        return connection;
    }

    /** Routes the connection's pub/sub messages through {@code outbox}; called once, before any command runs. */
    void attachPushes(PushOutbox outbox) {
        this.pushes = outbox;
        connection.subscriptions().sink(outbox);
    }

    /**
     * Event loop: writes a pub/sub message, after the replies this connection is still owed. A message is
     * published only after the SUBSCRIBE that asked for it registered, and that SUBSCRIBE's reply is counted
     * in {@link #unwritten} until written; so holding messages while anything is unwritten keeps
     * confirmations ahead of the messages they announce.
     */
    void writePush(ByteBuf message) {
        if (closed) {
            pushes.left(message.readableBytes());
            message.release();
            return;
        }
        if (unwritten.get() != 0 || !heldPushes.isEmpty()) {
            heldPushes.add(message);
            flushHeldPushes();
            return;
        }
        pushes.left(message.readableBytes());
        channel.writeAndFlush(message);
    }

    /** Event loop: writes the held messages once no reply is owed ahead of them. */
    private void flushHeldPushes() {
        if (heldPushes.isEmpty() || unwritten.get() != 0) {
            return;
        }
        ByteBuf message;
        while ((message = heldPushes.poll()) != null) {
            pushes.left(message.readableBytes());
            if (closed) {
                message.release();
            } else {
                channel.write(message);
            }
        }
        channel.flush();
    }

    Channel channel() {
        return channel;
    }

    /**
     * No drainer running and nothing queued (or the connection is closing and what is queued will never
     * run): every command received so far has been answered.
     */
    boolean idle() {
        return parked || !running.get() && (closed || (!decoding && queuedRequests.get() == 0));
    }

    /**
     * Event loop: collect a decoded request or protocol error. The read's requests are handed to the drainer
     * together by {@link #readComplete}, so a pipeline costs one queue operation and one start of the
     * drainer; only a read holding more than a batch hands off early, so that executing overlaps decoding.
     */
    void submit(Object item) {
        if (closed) {
            return;
        }
        boolean runsNext = reading.isEmpty() && queuedRequests.get() == 0 && !parked;
        if (runsNext && item instanceof RespRequest request) {
            if (!arrivals.anyPending() && shortcuts.answer(request)) {
                return;
            }
            if (channel.isWritable()) {
                ArrivalOrder.Announced a = arrivals.announce(connection.id(), request.args(), request);
                if (a != null) {
                    announced.add(a);
                }
            }
        }
        if (reading.isEmpty()) {
            decoding = true;
        }
        reading.add(item);
        if (item instanceof RespRequest r) {
            readingBytes += r.bytes();
        }
        if (reading.size() >= BATCH_REQUESTS) {
            handOff();
        }
    }

    /**
     * Event loop: nothing of this connection is queued or waiting to be written, and the channel takes more,
     * so a reply written now is the next one the client is owed.
     */
    boolean owesNothing() {
        // queuedRequests first: a drainer counts its batch in unwritten before it takes a request, so once
        // the queue reads empty, unwritten reads non-zero until that batch's replies are in the channel.
        // Whether a drainer thread still runs does not matter: with nothing queued it has nothing to answer.
        return queuedRequests.get() == 0 && unwritten.get() == 0 && channel.isWritable();
    }

    /** Event loop: the socket read is fully decoded. */
    void readComplete() {
        shortcuts.writeAnswered();
        if (reading.size() == 1 && reading.getFirst() instanceof RespRequest request && !arrivals.anyPending()
                && shortcuts.share(request)) {
            reading.clear();
            readingBytes = 0;
            decoding = false;
            return;
        }
        handOff();
    }

    /**
     * Event loop: takes the drainer token for a SET the loop's shared run commits, with one batch counted
     * unwritten, exactly as a drainer would while executing it, so every later request of the connection
     * waits for the SET's reply. False, taking nothing, unless the connection owes nothing and no drainer runs.
     */
    boolean holdForSharedSet() {
        if (closed || !owesNothing() || !running.compareAndSet(false, true)) {
            return false;
        }
        unwritten.incrementAndGet();
        return true;
    }

    /** Event loop: the shared run did not take the SET after all; nothing was queued meanwhile (the loop is the only producer). */
    void releaseSharedSetHold() {
        unwritten.decrementAndGet();
        flushHeldPushes();
        running.set(false);
    }

    /** The shared run holding this connection's SET is committed (see {@link EventLoopShortcuts#sharedSetDone}). */
    void sharedSetDone(String failure) {
        shortcuts.sharedSetDone(failure);
    }

    /** The shared SET's reply is in the channel: releases the hold and runs what arrived meanwhile. */
    void sharedSetAnswered() {
        unwritten.decrementAndGet();
        flushHeldPushes();
        running.set(false);
        startDrainer(); // requests that arrived meanwhile were queued behind the token
    }

    private void handOff() {
        shortcuts.writeAnswered();
        if (reading.isEmpty()) {
            return;
        }
        List<Object> items = reading;
        reading = new ArrayList<>();
        inbox.add(new HandOff(items, arrivals.stamp()));
        int n = queuedRequests.addAndGet(items.size());
        long bytes = queuedBytes.addAndGet(readingBytes);
        readingBytes = 0;
        decoding = false;
        if ((n >= PAUSE_REQUESTS || bytes >= PAUSE_BYTES) && !readingPaused) {
            readingPaused = true;
            channel.config().setAutoRead(false);
        }
        startDrainer();
    }

    /** Event loop: the channel became writable again; resume if requests wait. */
    void writable() {
        startDrainer();
    }

    /** A blocking command waits for data (the connection is quiet, but not idle in Redis's sense). */
    boolean parked() {
        return parked;
    }

    @Override
    public void park(Runnable disconnect) {
        parkRequested = true;
        onDisconnect = disconnect;
        unwritten.incrementAndGet();
        parked = true;
        // closed() reads parked after writing closed, this reads closed after writing parked: one of the two
        // sees the other, so a client that went away meanwhile is always told (the callback is idempotent).
        if (closed) {
            disconnect.run();
        }
    }

    @Override
    public void resume(Consumer<Reply> writer) {
        ByteBuf out = channel.alloc().ioBuffer(64);
        writer.accept(new Reply(out, connection.protocol()));
        if (out.isReadable() && out.getByte(out.readerIndex()) == '-') {
            int end = out.indexOf(out.readerIndex(), out.writerIndex(), (byte) '\r');
            dispatcher.parkedCommandFailed(connection, out.toString(out.readerIndex() + 1,
                    (end < 0 ? out.writerIndex() : end) - out.readerIndex() - 1, StandardCharsets.UTF_8));
        }
        parkedReply = out;
        arriveAtPark();
    }

    @Override
    public void heldByPause() {
        endAnnouncements();
    }

    @Override
    public Runnable schedule(Runnable task, long delayNanos) {
        var future = channel.eventLoop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    private void arriveAtPark() {
        if (parkArrivals.incrementAndGet() < 2) {
            return;
        }
        parkArrivals.set(0);
        ByteBuf out = parkedReply;
        parkedReply = null;
        onDisconnect = null;
        try {
            channel.eventLoop().execute(() -> {
                connection.touch(System.currentTimeMillis());
                stats.replyBytes(out.readableBytes());
                channel.writeAndFlush(out);
                unwritten.decrementAndGet();
                flushHeldPushes(); // messages its serving write sent meanwhile (tracking invalidations) follow it
                parked = false;
                running.set(false);
                startDrainer();
            });
        } catch (RejectedExecutionException shuttingDown) {
            out.release();
            unwritten.decrementAndGet();
            parked = false;
            running.set(false);
        }
    }

    void closed() {
        closed = true;
        Runnable disconnect = onDisconnect;
        if (parked && disconnect != null) {
            disconnect.run();
        }
        dispatcher.connectionClosed(connection);
        endAnnouncements();
        shortcuts.closed();
        reading.clear();
        decoding = false;
        inbox.clear();
        ByteBuf message;
        while ((message = heldPushes.poll()) != null) {
            pushes.left(message.readableBytes());
            message.release();
        }
    }

    /** The connection's announced commands will not run: nothing waits for them any more. */
    private void endAnnouncements() {
        ArrivalOrder.Announced a;
        while ((a = announced.poll()) != null) {
            arrivals.attempted(a);
        }
    }

    /** Requests were handed off and not yet executed (the count drops only after they ran). */
    private boolean hasWork() {
        return queuedRequests.get() > 0;
    }

    private void startDrainer() {
        if (hasWork() && channel.isWritable() && running.compareAndSet(false, true)) {
            drainers.newThread(drain).start();
        }
    }

    private void drain() {
        try {
            while (true) {
                if (closed || !channel.isWritable() || !hasWork()) {
                    running.set(false);
                    // Re-check after releasing the token: a hand-off or writability change may have raced us.
                    if (!closed && channel.isWritable() && hasWork() && running.compareAndSet(false, true)) {
                        continue;
                    }
                    return;
                }
                runBatch();
                if (parkRequested) {
                    parkRequested = false;
                    arriveAtPark(); // keeps the token: the parked reply's writer releases it
                    return;
                }
            }
        } catch (Throwable t) {
            running.set(false);
            System.getLogger(ClientSession.class.getName()).log(System.Logger.Level.ERROR,
                    "connection " + connection.id() + " failed", t);
            channel.close();
        }
    }

    /** The next handed-off request or error, or null when none is waiting. */
    private Object next() {
        if (current == null || currentIndex == current.items().size()) {
            current = inbox.poll();
            currentIndex = 0;
            if (current == null) {
                return null;
            }
        }
        return current.items().get(currentIndex++);
    }

    private void discardQueued() {
        closed = true;
        inbox.clear();
        current = null;
        endAnnouncements();
    }

    /**
     * Drainer: hands a batch of replies to the event loop to write; the batch stays counted in
     * {@link #unwritten} until the event loop has put it into the channel, so nothing is answered inline
     * ahead of it. Returns false (still counted: the caller uncounts it) if the event loop is gone.
     */
    private boolean writeOut(ByteBuf out, boolean lingerClose) {
        try {
            channel.eventLoop().execute(() -> {
                var future = channel.writeAndFlush(out);
                unwritten.decrementAndGet();
                flushHeldPushes();
                if (lingerClose) {
                    LingeringClose.after(future);
                }
            });
            return true;
        } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
            out.release();
            channel.close();
            return false;
        }
    }

    /** Executes up to a batch of queued requests and writes their replies with one flush. */
    private void runBatch() {
        // Counted before any request is taken (so before queuedRequests drops): see owesNothing.
        unwritten.incrementAndGet();
        boolean handedOver = false;
        try {
            handedOver = executeBatch();
        } finally {
            if (!handedOver) {
                unwritten.decrementAndGet();
            }
        }
    }

    /** Returns whether a reply buffer went to the event loop, which then uncounts it from unwritten. */
    private boolean executeBatch() {
        ByteBuf out = channel.alloc().ioBuffer(512);
        Reply reply = new Reply(out, connection.protocol());
        int done = 0;
        long doneBytes = 0;
        boolean closeAfter = false;
        boolean closeNow = false;
        boolean resumeDecoder = false;
        Object item;
        connection.touch(System.currentTimeMillis());
        while (done < BATCH_REQUESTS && out.readableBytes() < BATCH_BYTES && (item = next()) != null) {
            done++;
            if (item instanceof ProtocolError error) {
                sets.commit(reply);
                keyRun.commit(reply);
                reply.error(error.message());
                closeAfter = true;
                break;
            }
            RespRequest request = (RespRequest) item;
            doneBytes += request.bytes();
            stats.commandProcessed();
            ArrivalOrder.Announced own = announced.peek();
            if (own != null && !own.isFor(request)) {
                own = null;
            }
            if (arrivals.anyPending()) {
                sets.commit(reply); // their replies need not wait too
                keyRun.commit(reply);
                arrivals.awaitEarlier(connection.id(), own != null ? own.number() - 1 : current.stamp(),
                        request.args());
            }
            // At most one of the two runs holds requests at a time: each is committed before the other takes one.
            // A request taken by the key run runs, and replies, when the run is committed.
            if (!keyRun.isEmpty() && keyRun.offer(connection, request.args())) {
                continue;
            }
            keyRun.commit(reply);
            if (sets.offer(connection, request.args())) {
                continue;
            }
            sets.commit(reply); // before the next command runs, so it sees the SETs before it
            if (keyRun.offer(connection, request.args())) {
                continue;
            }
            boolean wasAuthenticated = connection.authenticated();
            reply.protocol(connection.protocol());
            dispatcher.execute(connection, request.args(), reply);
            if (own != null) {
                announced.remove(own);
                arrivals.attempted(own); // it took what it waited for, failed, or waits registered
            }
            resumeDecoder |= !wasAuthenticated;
            if (connection.closeWithoutReply()) {
                closeNow = true;
                break;
            }
            if (connection.closeAfterReply()) {
                closeAfter = true;
                dispatcher.connectionClosed(connection); // its socket lingers; the client is gone already
                break;
            }
            if (parkRequested) {
                break;
            }
        }
        sets.commit(reply);
        keyRun.commit(reply);
        queuedRequests.addAndGet(-done);
        long bytesLeft = queuedBytes.addAndGet(-doneBytes);
        if (closeNow) {
            // SHUTDOWN itself replies nothing; the replies of the commands before it still go out.
            discardQueued();
            if (out.isReadable()) {
                channel.writeAndFlush(out).addListener(f -> channel.close());
            } else {
                out.release();
                channel.close();
            }
            return false;
        }
        stats.replyBytes(out.readableBytes());
        boolean handedOver = false;
        if (out.isReadable()) {
            handedOver = writeOut(out, closeAfter);
        } else {
            out.release();
            if (closeAfter) {
                channel.close();
            }
        }
        if (closeAfter) {
            discardQueued();
            return handedOver;
        }
        if (resumeDecoder) {
            // The decoder pauses after an AUTH/HELLO from an unauthenticated client; resume() is a no-op otherwise.
            channel.eventLoop().execute(decoder::resume);
        }
        if (readingPaused && queuedRequests.get() < PAUSE_REQUESTS / 2 && bytesLeft < PAUSE_BYTES / 2) {
            channel.eventLoop().execute(() -> {
                if (readingPaused && queuedRequests.get() < PAUSE_REQUESTS / 2) {
                    readingPaused = false;
                    channel.config().setAutoRead(true);
                }
            });
        }
        return handedOver;
    }
}

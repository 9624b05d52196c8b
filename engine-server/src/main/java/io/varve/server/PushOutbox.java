package io.varve.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.varve.server.command.Connection;
import io.varve.server.pubsub.MessageSink;
import io.varve.server.resp.Reply;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A subscriber connection's pub/sub messages: encodes each on the publisher's thread, hands it to the
 * connection's event loop (which writes it behind any reply still owed, see {@link ClientSession#writePush}),
 * and disconnects the client when what waits for it exceeds the pubsub output buffer limit.
 *
 * <p>What waits for the client is the bytes encoded here and not yet in Netty's outbound buffer
 * ({@link #queued}) plus that buffer's pending bytes (replies included), as Redis counts its reply list.
 * Both are read without locks on the publisher's thread; the check may be off by the messages in flight at
 * that instant, never by more, so memory stays bounded by the hard limit plus one message per publisher.
 * A client that stops reading is therefore closed, not buffered for: the heap never grows without bound.
 */
final class PushOutbox implements MessageSink {

    private static final System.Logger LOG = System.getLogger(PushOutbox.class.getName());
    private static final long NEVER = Long.MIN_VALUE;

    private final Channel channel;
    private final Connection connection;
    private final ClientSession session;
    private final Supplier<OutputBufferLimit> limit;
    private final Runnable onLimitDisconnect;
    private final AtomicLong queued = new AtomicLong();
    private final AtomicBoolean disconnected = new AtomicBoolean();
    /** When the soft limit was first found exceeded without a break since, or NEVER. */
    private volatile long softSinceNanos = NEVER;

    PushOutbox(Channel channel, Connection connection, ClientSession session, Supplier<OutputBufferLimit> limit,
               Runnable onLimitDisconnect) {
        this.channel = channel;
        this.connection = connection;
        this.session = session;
        this.limit = limit;
        this.onLimitDisconnect = onLimitDisconnect;
    }

    @Override
    public void push(byte[]... parts) {
        if (disconnected.get() || !channel.isActive()) {
            return;
        }
        int estimate = 16;
        for (byte[] p : parts) {
            estimate += p.length + 16;
        }
        ByteBuf out = channel.alloc().buffer(estimate);
        Reply reply = new Reply(out, connection.protocol());
        reply.pushHeader(parts.length);
        for (byte[] p : parts) {
            reply.bulk(p);
        }
        send(out);
    }

    @Override
    public void pushLine(String text) {
        if (disconnected.get() || !channel.isActive()) {
            return;
        }
        ByteBuf out = channel.alloc().buffer(text.length() + 3);
        new Reply(out, connection.protocol()).simple(text);
        send(out);
    }

    @Override
    public void pushReply(java.util.function.Consumer<Reply> writer) {
        if (disconnected.get() || !channel.isActive()) {
            return;
        }
        ByteBuf out = channel.alloc().buffer(64);
        try {
            writer.accept(new Reply(out, connection.protocol()));
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        send(out);
    }

    /** Hands an encoded message to the event loop, or disconnects the client past its output limit. */
    private void send(ByteBuf out) {
        long size = out.readableBytes();
        long pending = queued.addAndGet(size) + outboundBytes();
        if (overLimit(pending)) {
            queued.addAndGet(-size);
            out.release();
            disconnect(pending);
            return;
        }
        try {
            channel.eventLoop().execute(() -> session.writePush(out));
        } catch (RejectedExecutionException shuttingDown) {
            queued.addAndGet(-size);
            out.release();
        }
    }

    /** The event loop put {@code bytes} of messages into the channel (or dropped them on close). */
    void left(long bytes) {
        queued.addAndGet(-bytes);
    }

    private long outboundBytes() {
        ChannelOutboundBuffer outbound = channel.unsafe().outboundBuffer();
        return outbound == null ? 0 : outbound.totalPendingWriteBytes();
    }

    private boolean overLimit(long pending) {
        OutputBufferLimit l = limit.get();
        if (l.hard() > 0 && pending >= l.hard()) {
            return true;
        }
        if (l.soft() > 0 && pending >= l.soft()) {
            long now = System.nanoTime();
            long since = softSinceNanos;
            if (since == NEVER) {
                softSinceNanos = now;
                return false;
            }
            return now - since > l.softSeconds() * 1_000_000_000L;
        }
        softSinceNanos = NEVER;
        return false;
    }

    private void disconnect(long pending) {
        if (disconnected.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.INFO, "client {0} closed for overcoming the pubsub output buffer limit "
                    + "({1} bytes waiting)", connection.id(), pending);
            onLimitDisconnect.run();
            channel.close();
        }
    }
}

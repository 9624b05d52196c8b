package io.varve.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.varve.server.command.Connection;
import io.varve.server.command.Dispatcher;
import io.varve.server.resp.Reply;
import io.varve.server.resp.RespRequest;

/**
 * The two ways one connection's request is answered without its drainer, on the event loop that read it.
 *
 * <h2>GETs answered from memory</h2>
 * When the connection owes nothing ({@link ClientSession#owesNothing}: nothing queued or waiting to be
 * written), a plain GET at the head of a read is answered here from what the engine holds in memory —
 * memtables, table filters and indexes, cached blocks ({@link Dispatcher#executeFromMemory}) — and so are
 * the GETs after it, until the first request that is not such a GET or whose answer needs table data that
 * is not cached; that one and everything after it in the read are handed to the drainer as usual. The
 * answers are written ({@link #writeAnswered}) before the hand-off, so replies still leave in request order.
 * Reads of table files never run on the event loop: they go through {@code mmap} and may wait for the disk.
 *
 * <h2>Lone SETs shared across connections</h2>
 * A read that decoded to exactly one blind SET, from a connection that owes nothing and has no drainer
 * running, is offered to the loop's shared run ({@link EventLoopSets}) instead of the drainer. The session
 * then holds its drainer token with one batch counted unwritten ({@link ClientSession#holdForSharedSet}),
 * as a drainer would while executing the SET, so nothing of the connection runs or is answered before the
 * SET's reply; {@link #sharedSetDone} writes that reply and gives the token back.
 *
 * <p>Event loop only (the shared SET's reply may be written from another thread once the loop is gone), so
 * the fields need no locking.
 */
final class EventLoopShortcuts {

    /** Answers on the event loop are written once they reach this many bytes, so the channel can push back. */
    private static final int WRITE_AT_BYTES = 256 << 10;

    private final ClientSession session;
    private final Channel channel;
    private final Connection connection;
    private final Dispatcher dispatcher;
    private final ServerStats stats;
    private final EventLoopSets loopSets;
    /** Replies answered during this read, not yet written. */
    private ByteBuf answered;
    private Reply answeredReply;

    EventLoopShortcuts(ClientSession session, Channel channel, Connection connection, Dispatcher dispatcher,
                       ServerStats stats, EventLoopSets loopSets) {
        this.session = session;
        this.channel = channel;
        this.connection = connection;
        this.dispatcher = dispatcher;
        this.stats = stats;
        this.loopSets = loopSets;
    }

    /**
     * Answers a plain GET from the engine's memory, if the connection owes nothing and memory decides it;
     * false, having answered nothing, otherwise (the caller queues the request). Only requests at the head of
     * a read come here, so once one request of a read is queued, every later one is too.
     */
    boolean answer(RespRequest request) {
        if (!session.owesNothing()) {
            return false;
        }
        if (answered == null) {
            answered = channel.alloc().ioBuffer(512);
            answeredReply = new Reply(answered, connection.protocol());
        }
        answeredReply.protocol(connection.protocol());
        if (!dispatcher.executeFromMemory(connection, request.args(), answeredReply)) {
            return false;
        }
        stats.commandProcessed();
        stats.inlineRead();
        if (answered.readableBytes() >= WRITE_AT_BYTES) {
            writeAnswered(); // lets the channel report unwritable, which stops answering here
        }
        return true;
    }

    /** Writes the replies answered so far; they precede everything still queued. */
    void writeAnswered() {
        if (answered == null) {
            return;
        }
        ByteBuf out = answered;
        answered = null;
        answeredReply = null;
        if (out.isReadable()) {
            connection.touch(System.currentTimeMillis());
            stats.replyBytes(out.readableBytes());
            channel.writeAndFlush(out);
        } else {
            out.release();
        }
    }

    /** Offers a read's only request, when it is a blind SET, to the loop's shared run; false if not taken. */
    boolean share(RespRequest request) {
        if (!session.holdForSharedSet()) {
            return false;
        }
        if (!loopSets.offer(session, request.args())) {
            session.releaseSharedSetHold();
            return false;
        }
        stats.commandProcessed();
        stats.sharedSet();
        return true;
    }

    /** Event loop (or any thread once the loop is gone): the shared run holding this connection's SET is committed. */
    void sharedSetDone(String failure) {
        ByteBuf out = channel.alloc().ioBuffer(16);
        Reply reply = new Reply(out, connection.protocol());
        if (failure == null) {
            reply.ok();
        } else {
            reply.error(failure);
        }
        connection.touch(System.currentTimeMillis());
        stats.replyBytes(out.readableBytes());
        channel.writeAndFlush(out);
        session.sharedSetAnswered();
    }

    /** The connection closed: drops the answers not yet written. */
    void closed() {
        if (answered != null) {
            answered.release();
            answered = null;
            answeredReply = null;
        }
    }
}

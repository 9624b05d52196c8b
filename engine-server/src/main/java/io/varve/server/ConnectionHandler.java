package io.varve.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.varve.server.resp.RespDecoder;
import io.varve.server.resp.ProtocolError;

import java.nio.charset.StandardCharsets;

/**
 * The last handler of a client pipeline: admits or refuses the connection (maxclients, protected mode),
 * hands decoded requests to the connection's {@link ClientSession}, and relays writability and idle events.
 * Runs on the channel's event loop and never blocks.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(ConnectionHandler.class.getName());

    static final String PROTECTED_MODE_ERROR = "-DENIED Redis is running in protected mode because protected mode is "
            + "enabled and no password is set for the default user. In this mode connections are only accepted "
            + "from the loopback interface. If you want to connect from external computers to Redis you may adopt "
            + "one of the following solutions: 1) Restart the server with the '--protected-mode no' option, "
            + "however MAKE SURE it is not publicly accessible from internet if you do so. 2) Set protected-mode "
            + "to 'no' in the configuration file and restart the server. 3) Set up an authentication password "
            + "for the default user (requirepass). NOTE: You only need to do one of the above things in order "
            + "for the server to start accepting connections from the outside.\r\n";

    private final RedisServer server;
    private final ClientSession session;
    private boolean admitted;

    ConnectionHandler(RedisServer server, ClientSession session) {
        this.server = server;
        this.session = session;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        String refusal = server.admit(session);
        if (refusal != null) {
            // Refused: stop decoding (input is released unread below) and say why before closing.
            ctx.pipeline().remove(RespDecoder.class);
            ByteBuf text = Unpooled.copiedBuffer(refusal, StandardCharsets.UTF_8);
            LingeringClose.after(ctx.writeAndFlush(text));
            return;
        }
        admitted = true;
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!admitted || server.stopping()) {
            ReferenceCountUtil.release(msg); // raw bytes of a refused client; decoded requests need no release
            return;
        }
        if (msg instanceof ProtocolError) {
            server.stats().protocolError();
        }
        session.submit(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (admitted) {
            session.readComplete();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            session.writable();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent && session.idle() && !session.parked()) {
            LOG.log(System.Logger.Level.DEBUG, "closing idle client {0}", session.connection().id());
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        session.closed();
        if (admitted) {
            server.release(session);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Socket resets and TLS failures are the client's problem; never let them reach the server.
        LOG.log(System.Logger.Level.DEBUG, "client " + session.connection().id() + " failed: " + cause);
        ctx.close();
    }
}

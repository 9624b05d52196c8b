package io.varve.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;

import java.util.concurrent.TimeUnit;

/**
 * Closes a connection after a final reply without losing that reply. Closing a TCP socket that still has
 * unread input makes the kernel send a reset, and a reset can make the client discard the reply it has not
 * read yet, e.g. the protocol error explaining why it was cut off. So: send the reply, half-close (FIN
 * after the reply), keep reading and discarding input until the client closes, and close for good after a
 * short grace period either way. TLS connections close at once, since their close must go through TLS.
 */
final class LingeringClose {

    private static final long GRACE_MILLIS = 2000;

    private LingeringClose() {
    }

    static void after(ChannelFuture finalWrite) {
        finalWrite.addListener(f -> {
            Channel ch = finalWrite.channel();
            if (!f.isSuccess() || !(ch instanceof SocketChannel socket) || ch.pipeline().get(SslHandler.class) != null) {
                ch.close();
                return;
            }
            ch.config().setAutoRead(true); // drain (and discard) what the client still sends
            socket.shutdownOutput().addListener(done -> {
                if (!done.isSuccess()) {
                    ch.close();
                }
            });
            ch.eventLoop().schedule(() -> ch.close(), GRACE_MILLIS, TimeUnit.MILLISECONDS);
        });
    }
}

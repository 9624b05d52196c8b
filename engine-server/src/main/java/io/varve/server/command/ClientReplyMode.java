package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.util.Set;

/**
 * CLIENT REPLY ON|OFF|SKIP. While OFF, or for the one command after SKIP, a command runs as usual and its reply
 * is dropped from the buffer it was written to. The replies of (un)subscribing and the messages a subscriber
 * receives still go out, as in Redis, since a client that silenced its replies still reads what it subscribed
 * to. Only the dispatcher drops replies: a connection in either mode is kept off the event-loop shortcuts.
 */
final class ClientReplyMode {

    /** Commands whose replies are pub/sub confirmations, sent even when replies are off. */
    private static final Set<String> ALWAYS_REPLIED = Set.of("subscribe", "psubscribe", "ssubscribe",
            "unsubscribe", "punsubscribe", "sunsubscribe");

    /** Runs a command the way {@link Dispatcher#execute} would, for a connection with replies off or skipped. */
    interface Execution {
        void execute(Connection connection, byte[][] args, Reply reply);
    }

    private ClientReplyMode() {
    }

    static void executeSilenced(Connection connection, byte[][] args, Reply reply, Execution execution) {
        if (isClientReply(args)) {
            execution.execute(connection, args, reply); // it sets the mode and replies (or not) itself
            return;
        }
        boolean silent = connection.takeSilence();
        int mark = reply.buffer().writerIndex();
        execution.execute(connection, args, reply);
        String name = new String(args[0], java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
        if (silent && !ALWAYS_REPLIED.contains(name)) {
            reply.buffer().writerIndex(mark);
        }
    }

    private static boolean isClientReply(byte[][] args) {
        return args.length >= 2 && Args.isKeyword(args[0], "client") && Args.isKeyword(args[1], "reply");
    }

    /** The CLIENT REPLY subcommand: ON answers OK; OFF and SKIP answer nothing. */
    static void clientReply(CommandCall c) {
        if (c.argCount() != 3) {
            throw RedisError.wrongArity("client|reply");
        }
        if (c.argIs(2, "on")) {
            c.connection().replyMode(false, false);
            c.reply().ok();
        } else if (c.argIs(2, "off")) {
            c.connection().replyMode(true, false);
        } else if (c.argIs(2, "skip")) {
            if (!c.connection().repliesOff()) {
                c.connection().replyMode(false, true);
            }
        } else {
            throw RedisError.syntax();
        }
    }
}

package io.varve.server.command;

import io.varve.server.pubsub.PubSubRegistry;
import io.varve.server.pubsub.Subscriptions;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Publish/subscribe: (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB, on the dispatcher's
 * {@link PubSubRegistry}. Confirmations are pushes (RESP3) or arrays (RESP2), one per name, as in Redis.
 * A RESP2 connection with any subscription is in subscriber mode: only the commands flagged
 * {@link CommandFlag#RUNS_WHEN_SUBSCRIBED} run ({@link Dispatcher} refuses the rest with Redis's text).
 * Shard channels behave like channels on a single node that owns every slot.
 */
final class PubSubCommands {

    private PubSubCommands() {
    }

    static void register(CommandTable.Builder b) {
        String flags = "pubsub noscript loading stale runs_when_subscribed";
        b.add("subscribe", -2, flags, (CoordinatedHandler) (c, d) -> subscribe(c, d, Subscriptions.Kind.CHANNEL));
        b.add("psubscribe", -2, flags, (CoordinatedHandler) (c, d) -> subscribe(c, d, Subscriptions.Kind.PATTERN));
        b.add("ssubscribe", -2, flags, 1, -1, 1,
                (CoordinatedHandler) (c, d) -> subscribe(c, d, Subscriptions.Kind.SHARD));
        b.add("unsubscribe", -1, flags, (CoordinatedHandler) (c, d) -> unsubscribe(c, d, Subscriptions.Kind.CHANNEL));
        b.add("punsubscribe", -1, flags,
                (CoordinatedHandler) (c, d) -> unsubscribe(c, d, Subscriptions.Kind.PATTERN));
        b.add("sunsubscribe", -1, flags, 1, -1, 1,
                (CoordinatedHandler) (c, d) -> unsubscribe(c, d, Subscriptions.Kind.SHARD));
        b.add("publish", 3, "pubsub loading stale fast may-replicate",
                (CoordinatedHandler) (c, d) -> publish(c, d, false));
        b.add("spublish", 3, "pubsub loading stale fast may-replicate", 1, 1, 1,
                (CoordinatedHandler) (c, d) -> publish(c, d, true));
        b.add("pubsub", -2, "", (CoordinatedHandler) PubSubCommands::pubsub);
        for (String sub : List.of("channels", "shardchannels", "numsub", "shardnumsub")) {
            b.subcommand("pubsub", sub, -2, "pubsub loading stale");
        }
        b.subcommand("pubsub", "numpat", 2, "pubsub loading stale");
        b.subcommand("pubsub", "help", 2, "loading stale");
    }

    /**
     * Delivers to this node's subscribers and, in a cluster, hands the message to the other nodes; the reply
     * counts this node's receivers only, as a Redis Cluster node's does.
     */
    private static void publish(CommandCall c, Dispatcher d, boolean sharded) {
        int received = sharded ? d.pubSub().publishShard(c.arg(1), c.arg(2)) : d.pubSub().publish(c.arg(1), c.arg(2));
        c.server().routing().forwardPublish(sharded, c.arg(1), c.arg(2), c.server().requirePass());
        c.reply().integer(received);
    }

    static String notAllowedWhenSubscribed(CommandSpec spec) {
        return "ERR Can't execute '" + spec.name() + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET"
                + " are allowed in this context";
    }

    private static String kindWord(Subscriptions.Kind kind, boolean subscribing) {
        String base = subscribing ? "subscribe" : "unsubscribe";
        return switch (kind) {
            case CHANNEL -> base;
            case PATTERN -> "p" + base;
            case SHARD -> "s" + base;
        };
    }

    private static int reportedCount(Subscriptions s, Subscriptions.Kind kind) {
        return kind == Subscriptions.Kind.SHARD ? s.count(kind) : s.channelsAndPatterns();
    }

    private static void subscribe(CommandCall c, Dispatcher d, Subscriptions.Kind kind) {
        Subscriptions mine = c.connection().subscriptions();
        String word = kindWord(kind, true);
        for (int i = 1; i < c.argCount(); i++) {
            d.pubSub().subscribe(kind, mine, c.arg(i));
            confirm(c.reply(), word, c.arg(i), reportedCount(mine, kind));
        }
    }

    private static void unsubscribe(CommandCall c, Dispatcher d, Subscriptions.Kind kind) {
        Subscriptions mine = c.connection().subscriptions();
        String word = kindWord(kind, false);
        List<byte[]> names = new ArrayList<>();
        if (c.argCount() == 1) {
            mine.all(kind).forEach(n -> names.add(n.bytes()));
            if (names.isEmpty()) {
                confirm(c.reply(), word, null, reportedCount(mine, kind));
                return;
            }
        } else {
            for (int i = 1; i < c.argCount(); i++) {
                names.add(c.arg(i));
            }
        }
        for (byte[] name : names) {
            d.pubSub().unsubscribe(kind, mine, name);
            confirm(c.reply(), word, name, reportedCount(mine, kind));
        }
    }

    /** Drops every subscription of a connection that closes or RESETs. */
    static void unsubscribeAll(Connection connection, Dispatcher d) {
        Subscriptions mine = connection.subscriptions();
        for (Subscriptions.Kind kind : Subscriptions.Kind.values()) {
            mine.all(kind).forEach(n -> d.pubSub().unsubscribe(kind, mine, n.bytes()));
        }
    }

    private static void confirm(Reply r, String word, byte[] name, int count) {
        r.pushHeader(3);
        r.bulk(word);
        r.bulk(name);
        r.integer(count);
    }

    private static void pubsub(CommandCall c, Dispatcher d) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        Reply r = c.reply();
        PubSubRegistry registry = d.pubSub();
        switch (sub) {
            case "channels", "shardchannels" -> {
                if (c.argCount() > 3) {
                    throw RedisError.wrongArity("pubsub|" + sub);
                }
                Predicate<byte[]> filter = c.argCount() == 3 ? new Glob(c.arg(2))::matches : name -> true;
                List<byte[]> names = registry.activeNames(sub.equals("channels")
                        ? Subscriptions.Kind.CHANNEL : Subscriptions.Kind.SHARD, filter);
                r.arrayHeader(names.size());
                names.forEach(r::bulk);
            }
            case "numsub", "shardnumsub" -> {
                Subscriptions.Kind kind = sub.equals("numsub") ? Subscriptions.Kind.CHANNEL : Subscriptions.Kind.SHARD;
                r.arrayHeader((c.argCount() - 2) * 2L);
                for (int i = 2; i < c.argCount(); i++) {
                    r.bulk(c.arg(i));
                    r.integer(registry.subscriberCount(kind, c.arg(i)));
                }
            }
            case "numpat" -> {
                if (c.argCount() != 2) {
                    throw RedisError.wrongArity("pubsub|numpat");
                }
                r.integer(registry.patternCount());
            }
            case "help" -> {
                List<String> lines = List.of("PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                        "CHANNELS [<pattern>]", "NUMPAT", "NUMSUB [<channel> ...]", "SHARDCHANNELS [<pattern>]",
                        "SHARDNUMSUB [<shardchannel> ...]", "HELP");
                r.arrayHeader(lines.size());
                lines.forEach(line -> r.simple(line));
            }
            default -> throw new RedisError("ERR unknown subcommand '" + c.argText(1)
                    + "'. Try PUBSUB HELP.");
        }
    }
}

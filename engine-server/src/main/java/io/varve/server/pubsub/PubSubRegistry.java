package io.varve.server.pubsub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Who listens where, server-wide: channel, pattern and shard-channel subscribers. Publishing looks up the
 * channel's subscribers and tests every pattern, then hands each a message through its {@link MessageSink},
 * which never blocks; so PUBLISH costs one map lookup plus one test per pattern, like Redis.
 *
 * <p>Thread-safety: per-name sets change under {@code ConcurrentHashMap.compute} and are copied before
 * delivery, so a publish racing a (un)subscribe delivers to the subscriber or not, never fails. A connection's
 * own {@link Subscriptions} is updated before the registry on subscribe and after it on unsubscribe, so the
 * registry never lists a connection that does not count the name itself.
 */
public final class PubSubRegistry {

    private static final byte[] MESSAGE = bytes("message");
    private static final byte[] PMESSAGE = bytes("pmessage");
    private static final byte[] SMESSAGE = bytes("smessage");

    private final Map<Subscriptions.Kind, ConcurrentHashMap<ChannelName, Set<Subscriptions>>> byKind = Map.of(
            Subscriptions.Kind.CHANNEL, new ConcurrentHashMap<>(),
            Subscriptions.Kind.PATTERN, new ConcurrentHashMap<>(),
            Subscriptions.Kind.SHARD, new ConcurrentHashMap<>());
    /** Compiled glob matchers of the subscribed patterns. */
    private final ConcurrentHashMap<ChannelName, Predicate<byte[]>> matchers = new ConcurrentHashMap<>();
    private final Function<byte[], Predicate<byte[]>> compile;

    /** @param compile turns a glob pattern into a matcher of channel names */
    public PubSubRegistry(Function<byte[], Predicate<byte[]>> compile) {
        this.compile = compile;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Subscribes; returns false if it already was subscribed. */
    public boolean subscribe(Subscriptions.Kind kind, Subscriptions who, byte[] name) {
        ChannelName key = new ChannelName(name);
        if (!who.add(kind, key)) {
            return false;
        }
        if (kind == Subscriptions.Kind.PATTERN) {
            matchers.computeIfAbsent(key, k -> compile.apply(k.bytes()));
        }
        byKind.get(kind).compute(key, (k, set) -> {
            Set<Subscriptions> s = set != null ? set : Collections.newSetFromMap(new IdentityHashMap<>());
            s.add(who);
            return s;
        });
        return true;
    }

    /** Unsubscribes; returns false if it was not subscribed. */
    public boolean unsubscribe(Subscriptions.Kind kind, Subscriptions who, byte[] name) {
        ChannelName key = new ChannelName(name);
        byKind.get(kind).computeIfPresent(key, (k, set) -> {
            set.remove(who);
            if (set.isEmpty()) {
                if (kind == Subscriptions.Kind.PATTERN) {
                    matchers.remove(k);
                }
                return null;
            }
            return set;
        });
        return who.remove(kind, key);
    }

    /** PUBLISH: delivers to channel and pattern subscribers; returns how many received it. */
    public int publish(byte[] channel, byte[] payload) {
        int receivers = 0;
        for (Subscriptions s : subscribersOf(Subscriptions.Kind.CHANNEL, channel)) {
            s.sink().push(MESSAGE, channel, payload);
            receivers++;
        }
        if (!matchers.isEmpty()) {
            for (Map.Entry<ChannelName, Set<Subscriptions>> e : byKind.get(Subscriptions.Kind.PATTERN).entrySet()) {
                Predicate<byte[]> matcher = matchers.get(e.getKey());
                if (matcher == null || !matcher.test(channel)) {
                    continue;
                }
                byte[] pattern = e.getKey().bytes();
                for (Subscriptions s : subscribersOf(Subscriptions.Kind.PATTERN, pattern)) {
                    s.sink().push(PMESSAGE, pattern, channel, payload);
                    receivers++;
                }
            }
        }
        return receivers;
    }

    /** SPUBLISH: delivers to the shard channel's subscribers (one node holds every shard). */
    public int publishShard(byte[] channel, byte[] payload) {
        int receivers = 0;
        for (Subscriptions s : subscribersOf(Subscriptions.Kind.SHARD, channel)) {
            s.sink().push(SMESSAGE, channel, payload);
            receivers++;
        }
        return receivers;
    }

    private List<Subscriptions> subscribersOf(Subscriptions.Kind kind, byte[] name) {
        List<Subscriptions> copy = new ArrayList<>();
        byKind.get(kind).computeIfPresent(new ChannelName(name), (k, set) -> {
            copy.addAll(set);
            return set;
        });
        return copy;
    }

    /** Names with at least one subscriber, matching {@code filter} (PUBSUB CHANNELS / SHARDCHANNELS). */
    public List<byte[]> activeNames(Subscriptions.Kind kind, Predicate<byte[]> filter) {
        List<byte[]> names = new ArrayList<>();
        for (ChannelName n : byKind.get(kind).keySet()) {
            if (filter.test(n.bytes())) {
                names.add(n.bytes());
            }
        }
        return names;
    }

    /** Subscribers of one name (PUBSUB NUMSUB / SHARDNUMSUB). */
    public int subscriberCount(Subscriptions.Kind kind, byte[] name) {
        return subscribersOf(kind, name).size();
    }

    /** Patterns with at least one subscriber (PUBSUB NUMPAT, INFO pubsub_patterns). */
    public int patternCount() {
        return byKind.get(Subscriptions.Kind.PATTERN).size();
    }

    public int channelCount() {
        return byKind.get(Subscriptions.Kind.CHANNEL).size();
    }
}

package io.varve.server.pubsub;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One connection's channels, patterns and shard channels, and where their messages go. Changed only by the
 * connection's own commands (and its close); read by CLIENT LIST and the subscriber-mode check, hence the
 * synchronized methods. Kept in subscription order, as Redis reports unsubscribing from all in that order.
 */
public final class Subscriptions {

    /** Which of the three namespaces a name belongs to. */
    public enum Kind {
        CHANNEL, PATTERN, SHARD
    }

    private final Set<ChannelName> channels = new LinkedHashSet<>();
    private final Set<ChannelName> patterns = new LinkedHashSet<>();
    private final Set<ChannelName> shardChannels = new LinkedHashSet<>();
    private volatile MessageSink sink = MessageSink.DISCARD;

    public MessageSink sink() {
        return sink;
    }

    /** The connection's network side attaches itself once it exists. */
    public void sink(MessageSink newSink) {
        this.sink = newSink;
    }

    private Set<ChannelName> of(Kind kind) {
        return switch (kind) {
            case CHANNEL -> channels;
            case PATTERN -> patterns;
            case SHARD -> shardChannels;
        };
    }

    synchronized boolean add(Kind kind, ChannelName name) {
        return of(kind).add(name);
    }

    synchronized boolean remove(Kind kind, ChannelName name) {
        return of(kind).remove(name);
    }

    public synchronized List<ChannelName> all(Kind kind) {
        return new ArrayList<>(of(kind));
    }

    /** Channels plus patterns: the count SUBSCRIBE and PSUBSCRIBE report. */
    public synchronized int channelsAndPatterns() {
        return channels.size() + patterns.size();
    }

    public synchronized int count(Kind kind) {
        return of(kind).size();
    }

    /** Subscribed to anything: a RESP2 connection is then in subscriber mode. */
    public synchronized boolean any() {
        return !channels.isEmpty() || !patterns.isEmpty() || !shardChannels.isEmpty();
    }
}

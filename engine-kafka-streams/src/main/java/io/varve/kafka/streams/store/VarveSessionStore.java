package io.varve.kafka.streams.store;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.internals.SessionKeySchema;

import java.util.Objects;

/**
 * Kafka Streams' persistent session store of raw bytes on Varve: keys in Kafka's session key layout
 * ({@code key | end (8 bytes) | start (8 bytes)}) inside time segments of a {@link SegmentedStore}, segmented by
 * session end. Finding the sessions that may merge with a new record searches from the segment of the earliest
 * end on, since a session ending late may have started early.
 */
public class VarveSessionStore extends SegmentedStateStore implements SessionStore<Bytes, byte[]> {

    public VarveSessionStore(String name, long retentionPeriod, long segmentInterval, StoreOptions options) {
        super(name, new SegmentedStore(name, retentionPeriod, segmentInterval, new SessionKeySchema(), true, false,
                options));
    }

    @Override
    public void put(Windowed<Bytes> sessionKey, byte[] aggregate) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        segments.put(SessionKeySchema.toBinary(sessionKey), aggregate);
        updatePosition();
    }

    @Override
    public void remove(Windowed<Bytes> sessionKey) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        segments.remove(SessionKeySchema.toBinary(sessionKey));
        updatePosition();
    }

    @Override
    public byte[] fetchSession(Bytes key, long sessionStartTime, long sessionEndTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return segments.get(SessionKeySchema.toBinary(key, sessionStartTime, sessionEndTime));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes key, long earliestSessionEndTime,
                                                                 long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return sessions(segments.fetch(key, earliestSessionEndTime, latestSessionStartTime, true));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes key, long earliestSessionEndTime,
                                                                         long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return sessions(segments.fetch(key, earliestSessionEndTime, latestSessionStartTime, false));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes keyFrom, Bytes keyTo,
                                                                 long earliestSessionEndTime,
                                                                 long latestSessionStartTime) {
        return sessions(segments.fetch(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, true));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes keyFrom, Bytes keyTo,
                                                                         long earliestSessionEndTime,
                                                                         long latestSessionStartTime) {
        return sessions(segments.fetch(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, false));
    }

    /**
     * Sessions of every key that end in {@code [earliestSessionEndTime, latestSessionEndTime]}, which emitting on
     * window close asks for. Kafka answers this only from its time-ordered session store, in end-time order
     * across keys; here the sessions come segment by segment, by key within a segment, so each key's sessions
     * are still in end-time order.
     */
    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(long earliestSessionEndTime,
                                                                 long latestSessionEndTime) {
        return sessions(segments.fetchBySegmentTimestamp(earliestSessionEndTime, latestSessionEndTime, true));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes key) {
        return findSessions(key, 0, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes key) {
        return backwardFindSessions(key, 0, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo) {
        return findSessions(keyFrom, keyTo, 0, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo) {
        return backwardFindSessions(keyFrom, keyTo, 0, Long.MAX_VALUE);
    }

    private static KeyValueIterator<Windowed<Bytes>, byte[]> sessions(KeyValueIterator<Bytes, byte[]> raw) {
        return new MappedIterator<>(raw, SessionKeySchema::from);
    }
}

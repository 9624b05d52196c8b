package io.varve.server.types;

import io.varve.server.store.StreamId;
import io.varve.server.store.StreamStore.Group;
import io.varve.server.store.StreamStore.Header;

/**
 * Redis 7's logical read counters of consumer groups: how many entries a group has read (entries-read)
 * and how many it has yet to read (lag), derived from the stream's entries-added counter. They are exact
 * only while no deleted entry lies ahead of the group; otherwise they are unknown (-1, and XINFO shows
 * null), as Redis reports them.
 */
final class StreamCounters {

    static final long UNKNOWN = -1;

    private StreamCounters() {
    }

    /** Whether an entry at or after {@code start} was deleted (XDEL), so counting from there is unreliable. */
    static boolean tombstonesFrom(Header h, long length, StreamId start) {
        if (length == 0 || h.maxDeletedId().isZero()) {
            return false;
        }
        if (h.firstId().compareTo(h.maxDeletedId()) > 0) {
            return false;
        }
        return start.compareTo(h.maxDeletedId()) <= 0;
    }

    /** The number of entries from the first ever added up to {@code id}, or {@link #UNKNOWN}. */
    static long distanceFromFirst(Header h, long length, StreamId id) {
        if (h.entriesAdded() == 0) {
            return 0;
        }
        if (length == 0 && id.compareTo(h.lastId()) <= 0) {
            return h.entriesAdded();
        }
        int cmpLast = id.compareTo(h.lastId());
        if (cmpLast == 0) {
            return h.entriesAdded();
        }
        if (cmpLast > 0) {
            return UNKNOWN;
        }
        int cmpFirst = id.compareTo(h.firstId());
        if (h.maxDeletedId().isZero() || h.maxDeletedId().compareTo(h.firstId()) < 0) {
            if (cmpFirst < 0) {
                return h.entriesAdded() - length;
            }
            if (cmpFirst == 0) {
                return h.entriesAdded() - length + 1;
            }
        }
        return UNKNOWN;
    }

    /** The group's entries-read after it delivered {@code id} beyond its last delivered ID. */
    static long afterDelivering(Header h, long length, Group g, StreamId id) {
        if (g.entriesRead() != UNKNOWN && !tombstonesFrom(h, length, id)) {
            return g.entriesRead() + 1;
        }
        return h.entriesAdded() != 0 ? distanceFromFirst(h, length, id) : g.entriesRead();
    }

    /** The group's lag, or null when it cannot be known. */
    static Long lag(Header h, long length, Group g) {
        if (h.entriesAdded() == 0) {
            return 0L;
        }
        if (g.entriesRead() != UNKNOWN && !tombstonesFrom(h, length, g.lastDelivered())) {
            return h.entriesAdded() - g.entriesRead();
        }
        long read = distanceFromFirst(h, length, g.lastDelivered());
        return read == UNKNOWN ? null : h.entriesAdded() - read;
    }
}

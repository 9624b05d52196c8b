package io.varve.raftlog.format;

/**
 * One operation of a batch, in the order the caller added it. Replaying a batch means applying its items in
 * order; the footer stores exactly this list (see {@link FooterCodec}).
 */
public sealed interface BatchItem {

    long group();

    /**
     * Entries {@code firstIndex .. firstIndex + count - 1} of a group: entries number {@code firstOrdinal ..}
     * of the batch, in the order the batch's items list them. The index remembers an entry by its batch and
     * that number; the payload lengths are in the footer, so readers find the bytes from there.
     */
    record Entries(long group, long firstIndex, int firstOrdinal, int count) implements BatchItem {
        public long lastIndex() {
            return firstIndex + count - 1;
        }
    }

    /** Drops all entries and all state of the group. */
    record Clean(long group) implements BatchItem {
    }

    /** Drops the group's entries below {@code index}. */
    record Compact(long group, long index) implements BatchItem {
    }

    record Put(long group, byte[] key, byte[] value) implements BatchItem {
    }

    record Delete(long group, byte[] key) implements BatchItem {
    }

    /**
     * Drop every entry outside [first, first + count); count 0 drops them all. Purge writes a group's range;
     * a suffix truncation writes first 0.
     */
    record Retain(long group, long first, long count) implements BatchItem {
    }

    /** Purge only: drop all key/values of the group. */
    record ClearState(long group) implements BatchItem {
    }

    /**
     * Purge only: closes a purge's writes to the rewrite queue; they count only once this is durable. It also
     * records what recovery must find for the committed state to be whole (docs/raftlog-format.md, COMMIT):
     * the append queue's synced end when the purge took its cut ({@code appendSequence}, {@code appendEnd}),
     * and the oldest append and rewrite files that must survive until a later commit ({@code appendFloor},
     * {@code rewriteFloor}: the purge may delete files below them). A version-3 commit records nothing
     * ({@link #UNRECORDED}).
     */
    record Commit(long appendSequence, long appendEnd, long appendFloor, long rewriteFloor) implements BatchItem {
        /** A commit of a version-3 file, which carries no positions. */
        public static final Commit UNRECORDED = new Commit(0, 0, 0, 0);

        @Override
        public long group() {
            return 0;
        }

        /** Whether the commit records positions (sequence numbers start at 1). */
        public boolean recorded() {
            return appendSequence > 0;
        }
    }
}

package io.varve.replication;

/**
 * A write that committed but that the group's {@link ApplyGate} refused: it changed nothing on any member,
 * so, unlike other {@link ReplicationException}s, its outcome is known.
 */
public final class EntryRefusedException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public EntryRefusedException(String message) {
        super(message);
    }
}

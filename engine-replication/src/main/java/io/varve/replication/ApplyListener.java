package io.varve.replication;

/**
 * Told what the state machine applies, on its thread, after the effects are in the database and before the
 * applied index moves or any proposer is answered: whoever learns of an applied entry (a read index, a
 * completed write) finds the listener already told. Must be quick and must not wait for the group.
 */
public interface ApplyListener {

    ApplyListener NONE = new ApplyListener() {
        @Override
        public void written(String family, byte[] key) {
        }

        @Override
        public void replaced() {
        }
    };

    /** A committed entry put or deleted {@code key} in {@code family}. */
    void written(String family, byte[] key);

    /** A snapshot replaced the whole state. */
    void replaced();
}

package io.varve.server.store;

import io.varve.base.concurrent.LockStripes;

import java.nio.charset.StandardCharsets;

/**
 * Key names whose stripe locks a {@link Keyspace} takes in a known order, for tests that hold one key's lock
 * and need a command locking two keys to wait for it without holding the other.
 */
public final class StripeOrder {

    private static final LockStripes STRIPES = new LockStripes(Keyspace.LOCK_STRIPES);

    private StripeOrder() {
    }

    /** A name starting with {@code prefix} whose stripe comes before {@code other}'s in the locking order. */
    public static String lockedBefore(String prefix, String other) {
        int stripe = STRIPES.stripeOf(other.getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 1_000_000; i++) {
            String name = prefix + i;
            if (STRIPES.stripeOf(name.getBytes(StandardCharsets.UTF_8)) < stripe) {
                return name;
            }
        }
        throw new IllegalArgumentException(other + " is on the first stripe: no key locks before it");
    }
}

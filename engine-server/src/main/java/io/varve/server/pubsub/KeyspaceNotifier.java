package io.varve.server.pubsub;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications: publishes {@code __keyspace@<db>__:<key>} (message: the event) and
 * {@code __keyevent@<db>__:<event>} (message: the key) for the event classes {@code notify-keyspace-events}
 * enables, through the ordinary pub/sub registry, as redis-server does. Disabled (the default, no class
 * letter), {@link #enabled} is one volatile read and nothing else runs.
 *
 * <p>Thread-safe: the classes are one volatile int replaced by CONFIG SET; publishing is the registry's.
 */
public final class KeyspaceNotifier {

    public static final int KEYSPACE = 1;
    public static final int KEYEVENT = 1 << 1;
    public static final int GENERIC = 1 << 2;
    public static final int STRING = 1 << 3;
    public static final int LIST = 1 << 4;
    public static final int SET = 1 << 5;
    public static final int HASH = 1 << 6;
    public static final int ZSET = 1 << 7;
    public static final int EXPIRED = 1 << 8;
    public static final int EVICTED = 1 << 9;
    public static final int STREAM = 1 << 10;
    public static final int KEY_MISS = 1 << 11;
    public static final int MODULE = 1 << 13;
    public static final int NEW = 1 << 14;
    /** What {@code A} stands for: every class but key misses and new keys, as in Redis. */
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    private final PubSubRegistry registry;
    private volatile int classes;

    public KeyspaceNotifier(PubSubRegistry registry) {
        this.registry = registry;
    }

    /** Applies a {@code notify-keyspace-events} value (already validated by {@link #parse}). */
    public void configure(String letters) {
        classes = parse(letters);
    }

    /** Whether any event could be published: some class and at least one of K and E. */
    public boolean enabled() {
        int c = classes;
        return (c & (KEYSPACE | KEYEVENT)) != 0 && (c & ~(KEYSPACE | KEYEVENT)) != 0;
    }

    /**
     * The classes a value names.
     *
     * @throws IllegalArgumentException for a letter that is no class
     */
    public static int parse(String letters) {
        int flags = 0;
        for (char c : letters.toCharArray()) {
            flags |= switch (c) {
                case 'A' -> ALL;
                case 'g' -> GENERIC;
                case '$' -> STRING;
                case 'l' -> LIST;
                case 's' -> SET;
                case 'h' -> HASH;
                case 'z' -> ZSET;
                case 'x' -> EXPIRED;
                case 'e' -> EVICTED;
                case 'K' -> KEYSPACE;
                case 'E' -> KEYEVENT;
                case 't' -> STREAM;
                case 'm' -> KEY_MISS;
                case 'd' -> MODULE;
                case 'n' -> NEW;
                default -> throw new IllegalArgumentException("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
            };
        }
        return flags;
    }

    /** Redis's canonical spelling of {@code letters} (CONFIG GET): {@code A} for all, then K, E, m, n. */
    public static String canonical(String letters) {
        int flags = parse(letters);
        StringBuilder out = new StringBuilder();
        if ((flags & ALL) == ALL) {
            out.append('A');
        } else {
            String order = "g$lshzxetd";
            int[] bits = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE};
            for (int i = 0; i < bits.length; i++) {
                if ((flags & bits[i]) != 0) {
                    out.append(order.charAt(i));
                }
            }
        }
        if ((flags & KEYSPACE) != 0) {
            out.append('K');
        }
        if ((flags & KEYEVENT) != 0) {
            out.append('E');
        }
        if ((flags & KEY_MISS) != 0) {
            out.append('m');
        }
        if ((flags & NEW) != 0) {
            out.append('n');
        }
        return out.toString();
    }

    /** Publishes {@code event} of class {@code type} on {@code key} in logical database {@code database}. */
    public void notify(int type, String event, byte[] key, int database) {
        int c = classes;
        if ((c & type) == 0) {
            return;
        }
        byte[] eventBytes = event.getBytes(StandardCharsets.US_ASCII);
        if ((c & KEYSPACE) != 0) {
            registry.publish(concat("__keyspace@" + database + "__:", key), eventBytes);
        }
        if ((c & KEYEVENT) != 0) {
            registry.publish(concat("__keyevent@" + database + "__:", eventBytes), key);
        }
    }

    private static byte[] concat(String prefix, byte[] tail) {
        byte[] head = prefix.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(tail, 0, out, head.length, tail.length);
        return out;
    }
}

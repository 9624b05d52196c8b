package io.varve.server.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's SLOWLOG: the most recent commands that took at least {@code slowlog-log-slower-than} microseconds
 * (negative: none, 0: every command), at most {@code slowlog-max-len} of them, newest first. Arguments are
 * cut as Redis cuts them (32 arguments, 128 bytes each) so a huge command cannot pin its memory here.
 * Thread-safe: commands of every connection record into it; the lock is taken only for slow commands.
 */
public final class SlowLog {

    static final int MAX_ARGUMENTS = 32;
    static final int MAX_ARGUMENT_BYTES = 128;

    /** One slow command. */
    public record Entry(long id, long unixSeconds, long micros, List<byte[]> args, String client, String name) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private volatile long slowerThanMicros = 10_000;
    private volatile int maxLength = 128;
    private long nextId;

    public void configure(long slowerThanMicros, int maxLength) {
        this.slowerThanMicros = slowerThanMicros;
        synchronized (this) {
            this.maxLength = maxLength;
            trim();
        }
    }

    boolean enabled() {
        return slowerThanMicros >= 0;
    }

    /** Whether a command that took {@code nanos} belongs in the log. */
    boolean isSlow(long nanos) {
        long threshold = slowerThanMicros;
        return threshold >= 0 && nanos / 1000 >= threshold;
    }

    void record(byte[][] args, long nanos, Connection connection) {
        List<byte[]> kept = new ArrayList<>();
        int shown = Math.min(args.length, MAX_ARGUMENTS);
        for (int i = 0; i < shown; i++) {
            if (i == shown - 1 && args.length > MAX_ARGUMENTS) {
                kept.add(("... (" + (args.length - MAX_ARGUMENTS + 1) + " more arguments)")
                        .getBytes(StandardCharsets.US_ASCII));
                break;
            }
            byte[] a = args[i];
            if (a.length > MAX_ARGUMENT_BYTES) {
                byte[] cut = new byte[MAX_ARGUMENT_BYTES];
                System.arraycopy(a, 0, cut, 0, MAX_ARGUMENT_BYTES);
                byte[] note = ("... (" + (a.length - MAX_ARGUMENT_BYTES) + " more bytes)")
                        .getBytes(StandardCharsets.US_ASCII);
                a = new byte[cut.length + note.length];
                System.arraycopy(cut, 0, a, 0, cut.length);
                System.arraycopy(note, 0, a, cut.length, note.length);
            }
            kept.add(a);
        }
        String name = connection.name();
        String client = Connection.address(connection.remote());
        synchronized (this) {
            entries.addFirst(new Entry(nextId++, System.currentTimeMillis() / 1000, nanos / 1000, kept, client,
                    name == null ? "" : name));
            trim();
        }
    }

    private void trim() {
        while (entries.size() > Math.max(0, maxLength)) {
            entries.removeLast();
        }
    }

    /** Up to {@code count} entries, newest first; a negative count means all. */
    public synchronized List<Entry> newest(long count) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (count >= 0 && out.size() >= count) {
                break;
            }
            out.add(e);
        }
        return out;
    }

    public synchronized int length() {
        return entries.size();
    }

    public synchronized void reset() {
        entries.clear();
    }
}

package io.varve.server.types;

/**
 * A stream command refused by the stream's own rules (an ID not above the top item, a group that does not
 * exist, ...). The message is Redis's full error text, code included ({@code ERR ...}, {@code NOGROUP ...},
 * {@code BUSYGROUP ...}), because clients branch on those words.
 */
public final class StreamError extends RuntimeException {

    public StreamError(String replyText) {
        super(replyText, null, false, false);
    }

    static StreamError noGroup(byte[] key, byte[] group, String context) {
        return new StreamError("NOGROUP No such key '" + RedisStreams.text(key) + "' or consumer group '"
                + RedisStreams.text(group) + "'" + context);
    }
}

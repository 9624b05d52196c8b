package io.varve.server;

import java.util.Locale;

/**
 * One client class's output buffer limit (Redis's client-output-buffer-limit): a client is disconnected once
 * the replies and messages waiting for it reach {@code hard} bytes, or stay at or above {@code soft} bytes
 * for longer than {@code softSeconds}. Zero disables a limit.
 */
record OutputBufferLimit(long hard, long soft, long softSeconds) {

    static final String DEFAULT = "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60";

    OutputBufferLimit {
        if (hard < 0 || soft < 0 || softSeconds < 0) {
            throw new IllegalArgumentException("client-output-buffer-limit values must not be negative");
        }
    }

    /** The pubsub class's limit from a parameter value of {@code <class> <hard> <soft> <seconds>} groups. */
    static OutputBufferLimit pubsub(String value) {
        String[] words = value.trim().split("\\s+");
        if (words.length % 4 != 0) {
            throw new IllegalArgumentException("client-output-buffer-limit needs groups of <class> <hard> <soft> "
                    + "<soft seconds>: " + value);
        }
        OutputBufferLimit found = null;
        for (int i = 0; i < words.length; i += 4) {
            String kind = words[i].toLowerCase(Locale.ROOT);
            if (!kind.equals("normal") && !kind.equals("replica") && !kind.equals("slave") && !kind.equals("pubsub")) {
                throw new IllegalArgumentException("client-output-buffer-limit: unknown client class " + words[i]);
            }
            OutputBufferLimit limit = new OutputBufferLimit(
                    ServerConfig.parseMemory("client-output-buffer-limit", words[i + 1]),
                    ServerConfig.parseMemory("client-output-buffer-limit", words[i + 2]),
                    Long.parseLong(words[i + 3]));
            if (kind.equals("pubsub")) {
                found = limit;
            }
        }
        return found != null ? found : pubsub(DEFAULT);
    }
}

package io.varve.server.pubsub;

import java.util.Arrays;

/** A channel or pattern name: bytes with value equality. */
public record ChannelName(byte[] bytes) {

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelName n && Arrays.equals(bytes, n.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}

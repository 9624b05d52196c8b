package io.varve.replication;

import io.varve.raftlog.LogBatch;
import io.varve.raftlog.RaftLogEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Gives every named log of a shared {@link RaftLogEngine} its numeric group, durably: SOFAJRaft knows a log
 * or a meta storage by a string (its URI), engine-raftlog knows a group by a number.
 *
 * <p>The mapping lives in the reserved group {@value #DIRECTORY_GROUP} as keys {@code name/<UTF-8 name>}
 * (value: the 8-byte id) and {@code next-id} (value: the next id to hand out), both written in one synced
 * batch when a name is first seen. So a name keeps its id across restarts and an id is never handed out
 * twice, even after a crash in the middle of an assignment. Thread-safe: assignments are serialized.
 */
final class GroupDirectory {
    static final long DIRECTORY_GROUP = 0;
    static final int MAX_NAME_BYTES = 4096;
    private static final byte[] NEXT_ID = "next-id".getBytes(StandardCharsets.UTF_8);
    private static final String NAME_PREFIX = "name/";

    private final RaftLogEngine engine;
    private final Map<String, Long> cache = new HashMap<>();

    GroupDirectory(RaftLogEngine engine) {
        this.engine = engine;
    }

    /** The group of {@code name}, assigning (and syncing) a new one on first use. */
    synchronized long groupOf(String name) throws IOException {
        Long cached = cache.get(name);
        if (cached != null) {
            return cached;
        }
        byte[] key = key(name);
        byte[] stored = engine.get(DIRECTORY_GROUP, key);
        long id;
        if (stored != null) {
            id = decode(stored, name);
        } else {
            byte[] next = engine.get(DIRECTORY_GROUP, NEXT_ID);
            id = next == null ? DIRECTORY_GROUP + 1 : decode(next, "next-id");
            engine.write(new LogBatch().put(DIRECTORY_GROUP, key, encode(id))
                    .put(DIRECTORY_GROUP, NEXT_ID, encode(id + 1)), true);
        }
        cache.put(name, id);
        return id;
    }

    private static byte[] key(String name) {
        byte[] key = (NAME_PREFIX + name).getBytes(StandardCharsets.UTF_8);
        if (key.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("log name longer than " + MAX_NAME_BYTES + " bytes: " + name);
        }
        return key;
    }

    static byte[] encode(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    private static long decode(byte[] bytes, String what) throws IOException {
        if (bytes.length != Long.BYTES) {
            throw new IOException("damaged group directory: " + what + " has " + bytes.length + " bytes");
        }
        return ByteBuffer.wrap(bytes).getLong();
    }
}

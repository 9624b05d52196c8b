package io.varve.server.command;

import io.varve.core.DbIterator;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Metadata;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random string, hash, list and set commands with expiries, moves of the clock, flushes and compactions. Whenever
 * compaction runs: (1) what clients can read is exactly what they could read before it, and (2) after a
 * full compaction nothing is left on disk that no client can reach — no expired metadata, and no subkey
 * whose collection is gone, expired, overwritten by a string or re-created under a new version.
 */
class CompactionFilterProperties {

    private static final List<String> KEYS = List.of("a", "b", "c");
    private static final List<String> FIELDS = List.of("x", "y", "z");

    @Property(tries = 80)
    void compactionKeepsWhatClientsSeeAndDropsTheRest(@ForAll("programs") List<String[]> program,
            @ForAll boolean slotted) throws Exception {
        try (InProcessServer s = InProcessServer.of(slotted)) {
            for (String[] op : program) {
                switch (op[0]) {
                    case "ADVANCE" -> s.clock.addAndGet(Long.parseLong(op[1]));
                    case "FLUSH" -> s.db.flush();
                    case "COMPACT" -> compactAndCheck(s);
                    default -> s.call(op);
                }
            }
            compactAndCheck(s);
        }
    }

    private static void compactAndCheck(InProcessServer s) {
        String before = visibleState(s);
        s.db.compactRange(null, null);
        assertEquals(before, visibleState(s), "compaction changed what clients see");
        assertNoGarbage(s);
    }

    /** Everything a client can learn about the keys, as reply text. */
    private static String visibleState(InProcessServer s) {
        StringBuilder b = new StringBuilder();
        for (String k : KEYS) {
            b.append(k).append(": ").append(s.call("TYPE", k)).append(s.call("PTTL", k))
                    .append(s.call("GET", k)).append(s.call("HGETALL", k)).append(s.call("HLEN", k))
                    .append(s.call("LRANGE", k, "0", "-1")).append(s.call("SMEMBERS", k)).append('\n');
        }
        return b.append(s.call("DBSIZE")).toString();
    }

    private static void assertNoGarbage(InProcessServer s) {
        long now = s.clock.get();
        Map<String, Metadata> metadata = new HashMap<>();
        Map<String, Long> subkeysPerKey = new HashMap<>();
        try (DbIterator it = s.db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = it.key();
                if (KeyEncoding.isMetadataKey(key)) {
                    Metadata meta = Metadata.decode(it.value());
                    String user = text(KeyEncoding.userKeyOfMetadata(key));
                    assertFalse(meta.isExpired(now), "expired metadata left on disk: " + user);
                    metadata.put(user, meta);
                } else if (KeyEncoding.looksLikeSubkey(key)) {
                    // Metadata keys ('m'; slotted 'M') sort before subkeys ('s'; 'S'), so every live owner is known by now.
                    int prefix = KeyEncoding.subkeyPrefixLength(key);
                    String user = text(KeyEncoding.userKeyOfSubkey(key, prefix));
                    Metadata owner = metadata.get(user);
                    String where = "subkey " + user + "/" + text(KeyEncoding.fieldOfSubkey(key, prefix));
                    assertTrue(owner != null && owner.type().hasSubkeys()
                            && owner.version() == KeyEncoding.versionOfSubkey(key, prefix), where + " has no live hash");
                    subkeysPerKey.merge(user, 1L, Long::sum);
                }
            }
        }
        for (Map.Entry<String, Metadata> e : metadata.entrySet()) {
            if (e.getValue().type().hasSubkeys()) {
                assertEquals(e.getValue().size(), subkeysPerKey.getOrDefault(e.getKey(), 0L).longValue(),
                        "fields on disk of hash " + e.getKey());
            }
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> field = Arbitraries.of(FIELDS);
        Arbitrary<String> value = Arbitraries.of("1", "22", "333");
        Arbitrary<String> millis = Arbitraries.longs().between(1, 3000).map(String::valueOf);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v})),
                net.jqwik.api.Tuple.of(3, Combinators.combine(key, value, millis)
                        .as((k, v, t) -> new String[] {"SET", k, v, "PX", t})),
                net.jqwik.api.Tuple.of(6, Combinators.combine(key, field, value)
                        .as((k, f, v) -> new String[] {"HSET", k, f, v})),
                net.jqwik.api.Tuple.of(2, Combinators.combine(key, field).as((k, f) -> new String[] {"HDEL", k, f})),
                net.jqwik.api.Tuple.of(3, Combinators.combine(Arbitraries.of("LPUSH", "RPUSH", "SADD", "SREM"), key, field)
                        .as((c, k, f) -> new String[] {c, k, f})),
                net.jqwik.api.Tuple.of(2, Combinators.combine(Arbitraries.of("LPOP", "RPOP", "SPOP"), key)
                        .as((c, k) -> new String[] {c, k})),
                net.jqwik.api.Tuple.of(1, Combinators.combine(key, key).as((a, b) -> new String[] {"LMOVE", a, b, "LEFT", "RIGHT"})),
                net.jqwik.api.Tuple.of(1, Combinators.combine(key, field).as((k, f) -> new String[] {"LREM", k, "0", f})),
                net.jqwik.api.Tuple.of(2, key.map(k -> new String[] {"DEL", k})),
                net.jqwik.api.Tuple.of(2, Combinators.combine(key, millis).as((k, t) -> new String[] {"PEXPIRE", k, t})),
                net.jqwik.api.Tuple.of(1, key.map(k -> new String[] {"PERSIST", k})),
                net.jqwik.api.Tuple.of(1, Combinators.combine(key, key).as((k, t) -> new String[] {"RENAME", k, t})),
                net.jqwik.api.Tuple.of(3, millis.map(t -> new String[] {"ADVANCE", t})),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new String[] {"FLUSH"})),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new String[] {"COMPACT"})));
        return op.list().ofMinSize(1).ofMaxSize(60).map(ops -> ops.stream().map(o -> Arrays.copyOf(o, o.length)).toList());
    }
}

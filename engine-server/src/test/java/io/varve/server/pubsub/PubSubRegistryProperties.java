package io.varve.server.pubsub;

import io.varve.server.command.Glob;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random subscribes, unsubscribes and publishes of three subscribers against a model (a set of names per
 * subscriber and kind): every publish reaches exactly the subscribers the model says, with the right message
 * shape, and every count the registry reports matches the model.
 */
class PubSubRegistryProperties {

    private static final List<String> CHANNELS = List.of("news", "nets", "sport");
    private static final List<String> PATTERNS = List.of("n*", "*s", "sp?rt");

    /** kind: "sub", "unsub" or "pub"; who: subscriber index; namespace: the Subscriptions.Kind for sub/unsub. */
    record Op(String kind, int who, Subscriptions.Kind namespace, String name) {
    }

    @Property(tries = 300)
    void deliveriesMatchTheModel(@ForAll("ops") List<Op> ops) {
        PubSubRegistry registry = new PubSubRegistry(pattern -> new Glob(pattern)::matches);
        List<Subscriptions> subscribers = new ArrayList<>();
        List<List<String>> received = new ArrayList<>();
        List<List<Set<String>>> model = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Subscriptions s = new Subscriptions();
            List<String> inbox = new ArrayList<>();
            s.sink(parts -> {
                StringBuilder b = new StringBuilder();
                for (byte[] p : parts) {
                    b.append(new String(p, StandardCharsets.UTF_8)).append('|');
                }
                inbox.add(b.toString());
            });
            subscribers.add(s);
            received.add(inbox);
            model.add(List.of(new HashSet<>(), new HashSet<>(), new HashSet<>()));
        }
        for (Op op : ops) {
            Set<String> names = op.namespace() == null ? null : model.get(op.who()).get(op.namespace().ordinal());
            switch (op.kind()) {
                case "sub" -> assertEquals(names.add(op.name()),
                        registry.subscribe(op.namespace(), subscribers.get(op.who()), bytes(op.name())));
                case "unsub" -> assertEquals(names.remove(op.name()),
                        registry.unsubscribe(op.namespace(), subscribers.get(op.who()), bytes(op.name())));
                case "pub" -> checkPublish(registry, received, model, op.name());
                default -> throw new IllegalArgumentException(op.kind());
            }
            for (int i = 0; i < 3; i++) {
                for (Subscriptions.Kind kind : Subscriptions.Kind.values()) {
                    assertEquals(model.get(i).get(kind.ordinal()).size(), subscribers.get(i).count(kind));
                }
            }
            for (String channel : CHANNELS) {
                long expected = model.stream().filter(m -> m.get(Subscriptions.Kind.CHANNEL.ordinal()).contains(channel)).count();
                assertEquals(expected, registry.subscriberCount(Subscriptions.Kind.CHANNEL, bytes(channel)));
            }
            long patterns = PATTERNS.stream().filter(p -> model.stream()
                    .anyMatch(m -> m.get(Subscriptions.Kind.PATTERN.ordinal()).contains(p))).count();
            assertEquals(patterns, registry.patternCount());
        }
    }

    private static void checkPublish(PubSubRegistry registry, List<List<String>> received,
                                     List<List<Set<String>>> model, String channel) {
        received.forEach(List::clear);
        int receivers = registry.publish(bytes(channel), bytes("m"));
        int shardReceivers = registry.publishShard(bytes(channel), bytes("s"));
        int expectedReceivers = 0;
        int expectedShard = 0;
        for (int i = 0; i < 3; i++) {
            List<String> expected = new ArrayList<>();
            if (model.get(i).get(Subscriptions.Kind.CHANNEL.ordinal()).contains(channel)) {
                expected.add("message|" + channel + "|m|");
                expectedReceivers++;
            }
            for (String pattern : model.get(i).get(Subscriptions.Kind.PATTERN.ordinal())) {
                if (new Glob(bytes(pattern)).matches(bytes(channel))) {
                    expected.add("pmessage|" + pattern + "|" + channel + "|m|");
                    expectedReceivers++;
                }
            }
            if (model.get(i).get(Subscriptions.Kind.SHARD.ordinal()).contains(channel)) {
                expected.add("smessage|" + channel + "|s|");
                expectedShard++;
            }
            assertEquals(new HashSet<>(expected), new HashSet<>(received.get(i)), "subscriber " + i);
            assertEquals(expected.size(), received.get(i).size(), "each message once");
        }
        assertEquals(expectedReceivers, receivers);
        assertEquals(expectedShard, shardReceivers);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> who = Arbitraries.integers().between(0, 2);
        Arbitrary<Op> channel = Combinators.combine(Arbitraries.of("sub", "unsub"), who,
                Arbitraries.of(Subscriptions.Kind.CHANNEL, Subscriptions.Kind.SHARD), Arbitraries.of(CHANNELS))
                .as(Op::new);
        Arbitrary<Op> pattern = Combinators.combine(Arbitraries.of("sub", "unsub"), who, Arbitraries.of(PATTERNS))
                .as((k, w, p) -> new Op(k, w, Subscriptions.Kind.PATTERN, p));
        Arbitrary<Op> publish = Arbitraries.of(CHANNELS).map(c -> new Op("pub", 0, null, c));
        return Arbitraries.oneOf(channel, pattern, publish).list().ofMaxSize(40);
    }
}

package io.varve.server.command;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random SETBIT, GETBIT, BITCOUNT, BITPOS and BITFIELD programs against a {@link BitSet} and a byte length
 * per key (bit i of the BitSet is Redis's bit i: the most significant bit of byte i/8 first). BITFIELD's
 * overflow rules are modelled on exact integers: WRAP keeps the low bits, SAT clamps, FAIL refuses.
 * After each step the whole value (as bytes from BITFIELD GETs) must match the model.
 */
class BitModelProperties {

    private static final List<String> KEYS = List.of("a", "b");

    private final Map<String, BitSet> bits = new HashMap<>();
    private final Map<String, Integer> lengths = new HashMap<>();

    @Property(tries = 200)
    void bitsBehaveLikeABitSet(@ForAll("programs") List<String[]> program) throws Exception {
        bits.clear();
        lengths.clear();
        try (InProcessServer s = new InProcessServer()) {
            int step = 0;
            for (String[] op : program) {
                step++;
                String where = "step " + step + " " + String.join(" ", op);
                if (op[0].equals("RESTART")) {
                    s.restart();
                } else {
                    assertEquals(expected(op), RespText.parse(s.call(op)), where);
                }
                for (String k : KEYS) {
                    int length = lengths.getOrDefault(k, 0);
                    assertEquals((long) length, RespText.parse(s.call("STRLEN", k)), where + ": length of " + k);
                    assertEquals((long) bitSet(k).cardinality(), RespText.parse(s.call("BITCOUNT", k)), where);
                    for (int i = 0; i < length; i++) {
                        assertEquals(read(k, i * 8L, 8, false),
                                ((List<?>) RespText.parse(s.call("BITFIELD", k, "GET", "u8", "#" + i))).getFirst(),
                                where + ": byte " + i + " of " + k);
                    }
                }
            }
        }
    }

    private BitSet bitSet(String k) {
        return bits.computeIfAbsent(k, x -> new BitSet());
    }

    private void grow(String k, long bitsNeeded) {
        lengths.merge(k, (int) ((bitsNeeded + 7) / 8), Math::max);
    }

    private long read(String k, long offset, int width, boolean signed) {
        BigInteger v = BigInteger.ZERO;
        for (int i = 0; i < width; i++) {
            v = v.shiftLeft(1).or(bitSet(k).get((int) (offset + i)) ? BigInteger.ONE : BigInteger.ZERO);
        }
        if (signed && v.testBit(width - 1)) {
            v = v.subtract(BigInteger.ONE.shiftLeft(width));
        }
        return v.longValue();
    }

    private void write(String k, long offset, int width, BigInteger v) {
        for (int i = 0; i < width; i++) {
            bitSet(k).set((int) (offset + i), v.testBit(width - 1 - i));
        }
    }

    private Object expected(String[] op) {
        String k = op[1];
        switch (op[0]) {
            case "SETBIT" -> {
                int offset = Integer.parseInt(op[2]);
                long old = bitSet(k).get(offset) ? 1 : 0;
                bitSet(k).set(offset, op[3].equals("1"));
                grow(k, offset + 1L);
                return old;
            }
            case "GETBIT" -> {
                return bitSet(k).get(Integer.parseInt(op[2])) ? 1L : 0L;
            }
            case "BITCOUNT" -> {
                int length = lengths.getOrDefault(k, 0);
                boolean bitUnit = op.length == 5 && op[4].equals("BIT");
                long total = bitUnit ? length * 8L : length;
                long[] r = clamp(Long.parseLong(op[2]), Long.parseLong(op[3]), total);
                if (r == null) {
                    return 0L;
                }
                long first = bitUnit ? r[0] : r[0] * 8;
                long last = bitUnit ? r[1] : r[1] * 8 + 7;
                return (long) bitSet(k).get((int) first, (int) last + 1).cardinality();
            }
            case "BITPOS" -> {
                boolean wanted = op[2].equals("1");
                if (!lengths.containsKey(k)) {
                    return wanted ? -1L : 0L;
                }
                int length = lengths.get(k);
                long[] r = clamp(Long.parseLong(op[3]), -1, length);
                if (r == null) {
                    return -1L;
                }
                for (long p = r[0] * 8; p <= r[1] * 8 + 7; p++) {
                    if (bitSet(k).get((int) p) == wanted) {
                        return p;
                    }
                }
                return wanted ? -1L : (r[1] + 1) * 8;
            }
            case "BITFIELD" -> {
                List<Object> replies = new ArrayList<>();
                String overflow = "WRAP";
                long highest = 0;
                for (int i = 2; i < op.length; ) {
                    if (op[i].equals("SET") || op[i].equals("INCRBY")) {
                        highest = Math.max(highest, offset(op[i + 2], width(op[i + 1])) + width(op[i + 1]));
                    }
                    i += op[i].equals("OVERFLOW") ? 2 : op[i].equals("GET") ? 3 : 4;
                }
                if (highest > 0) {
                    grow(k, highest);
                }
                for (int i = 2; i < op.length; ) {
                    String sub = op[i];
                    if (sub.equals("OVERFLOW")) {
                        overflow = op[i + 1];
                        i += 2;
                        continue;
                    }
                    boolean signed = op[i + 1].startsWith("i");
                    int width = width(op[i + 1]);
                    long offset = offset(op[i + 2], width);
                    long old = read(k, offset, width, signed);
                    if (sub.equals("GET")) {
                        replies.add(old);
                        i += 3;
                        continue;
                    }
                    long arg = Long.parseLong(op[i + 3]);
                    // Redis reads an unsigned SET's value as a uint64, so a negative one is a huge number.
                    BigInteger exact = sub.equals("SET")
                            ? (signed ? BigInteger.valueOf(arg) : new BigInteger(Long.toUnsignedString(arg)))
                            : BigInteger.valueOf(old).add(BigInteger.valueOf(arg));
                    BigInteger min = signed ? BigInteger.ONE.shiftLeft(width - 1).negate() : BigInteger.ZERO;
                    BigInteger max = (signed ? BigInteger.ONE.shiftLeft(width - 1) : BigInteger.ONE.shiftLeft(width))
                            .subtract(BigInteger.ONE);
                    BigInteger stored = exact;
                    if (exact.compareTo(min) < 0 || exact.compareTo(max) > 0) {
                        stored = switch (overflow) {
                            case "SAT" -> exact.signum() < 0 ? min : max;
                            case "FAIL" -> null;
                            default -> exact.mod(BigInteger.ONE.shiftLeft(width));
                        };
                    }
                    if (stored == null) {
                        replies.add(null);
                    } else {
                        write(k, offset, width, stored.mod(BigInteger.ONE.shiftLeft(width)));
                        replies.add(sub.equals("SET") ? old : read(k, offset, width, signed));
                    }
                    i += 4;
                }
                return replies;
            }
            default -> throw new IllegalArgumentException(op[0]);
        }
    }

    private static int width(String type) {
        return Integer.parseInt(type.substring(1));
    }

    private static long offset(String arg, int width) {
        return arg.startsWith("#") ? Long.parseLong(arg.substring(1)) * width : Long.parseLong(arg);
    }

    /** Redis's start/end normalisation against {@code total}; null when the range is empty. */
    private static long[] clamp(long start, long end, long total) {
        if (start < 0 && end < 0 && start > end) {
            return null;
        }
        start = start < 0 ? Math.max(0, total + start) : start;
        end = end < 0 ? Math.max(0, total + end) : end;
        end = Math.min(end, total - 1);
        return start > end ? null : new long[] {start, end};
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> bitOffset = Arbitraries.integers().between(0, 90).map(String::valueOf);
        Arbitrary<String> index = Arbitraries.integers().between(-12, 12).map(String::valueOf);
        Arbitrary<String> type = Arbitraries.oneOf(
                Arbitraries.integers().between(1, 64).map(w -> "i" + w),
                Arbitraries.integers().between(1, 63).map(w -> "u" + w));
        Arbitrary<String> value = Arbitraries.oneOf(Arbitraries.longs().between(-300, 300),
                Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE / 3)).map(String::valueOf);
        Arbitrary<String> fieldOffset = Arbitraries.oneOf(Arbitraries.integers().between(0, 40).map(String::valueOf),
                Arbitraries.integers().between(0, 3).map(n -> "#" + n));
        Arbitrary<List<String>> sub = Arbitraries.oneOf(
                Combinators.combine(type, fieldOffset).as((t, o) -> List.of("GET", t, o)),
                Combinators.combine(Arbitraries.of("SET", "INCRBY"), type, fieldOffset, value)
                        .as((s, t, o, v) -> List.of(s, t, o, v)),
                Arbitraries.of("WRAP", "SAT", "FAIL").map(o -> List.of("OVERFLOW", o)));
        Arbitrary<String[]> bitfield = Combinators.combine(key, sub.list().ofMinSize(1).ofMaxSize(4))
                .as((k, subs) -> {
                    List<String> a = new ArrayList<>(List.of("BITFIELD", k));
                    subs.forEach(a::addAll);
                    return a.toArray(String[]::new);
                })
                .filter(a -> !a[a.length - 2].equals("OVERFLOW") || a.length > 4);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(4, Combinators.combine(key, bitOffset, Arbitraries.of("0", "1"))
                        .as((k, o, v) -> new String[] {"SETBIT", k, o, v})),
                Tuple.of(2, Combinators.combine(key, bitOffset).as((k, o) -> new String[] {"GETBIT", k, o})),
                Tuple.of(2, Combinators.combine(key, index, index, Arbitraries.of("", "BYTE", "BIT"))
                        .as((k, a, b, u) -> u.isEmpty() ? new String[] {"BITCOUNT", k, a, b}
                                : new String[] {"BITCOUNT", k, a, b, u})),
                Tuple.of(2, Combinators.combine(key, Arbitraries.of("0", "1"), index)
                        .as((k, b, st) -> new String[] {"BITPOS", k, b, st})),
                Tuple.of(5, bitfield),
                Tuple.of(1, Arbitraries.just(new String[] {"RESTART", "-"})));
        return op.list().ofMinSize(1).ofMaxSize(40);
    }
}

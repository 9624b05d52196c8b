package io.varve.server.command;

import java.util.List;
import java.util.function.IntConsumer;

/**
 * Where one group of a command's key arguments sits, in the form of Redis 7's key specifications: the search
 * begins at argument {@link #beginIndex}, and from there either a <em>range</em> runs to a last key (counted
 * from the begin index when not negative, from the end of the arguments when negative) in steps, or a
 * <em>key count</em> argument says how many keys follow. A command may have several (ZUNIONSTORE: the
 * destination, then a counted list of sources). WATCH invalidation, COMMAND GETKEYS and COMMAND INFO all read
 * keys through these, so a command declared here is a command whose writes are seen.
 *
 * @param beginIndex the argument the search starts at (1 = the first after the name); for a keyword search,
 *                   the argument the keyword is looked for from
 * @param find       how the keys are found from there
 * @param keyword    null when the search begins at {@code beginIndex} itself; else the keys begin right after
 *                   the first argument from {@code beginIndex} on that equals it, case-insensitively (XREAD's
 *                   {@code STREAMS}), and a call without it has no keys
 */
public record KeySpec(int beginIndex, Find find, String keyword) {

    public KeySpec(int beginIndex, Find find) {
        this(beginIndex, find, null);
    }

    /** How keys are found once the begin index is reached. */
    public sealed interface Find permits Range, KeyCount {
    }

    /**
     * Keys from the begin index to {@code lastKey} (not negative: that many arguments after the begin index;
     * negative: counted from the end, -1 being the last argument), every {@code step}-th argument.
     */
    public record Range(int lastKey, int step, int limit) implements Find {

        /**
         * With {@code limit} above 1 and {@code lastKey} -1, only the first 1/limit of the arguments from
         * the begin index are keys (XREAD's keys, then as many IDs).
         */
        public Range(int lastKey, int step) {
            this(lastKey, step, 0);
        }
    }

    /**
     * The argument {@code countOffset} after the begin index holds a key count; the keys start
     * {@code firstKeyOffset} after the begin index, every {@code step}-th argument.
     */
    public record KeyCount(int countOffset, int firstKeyOffset, int step) implements Find {
    }

    /** The argument's count of keys is not a non-negative integer, or names more keys than there are arguments. */
    public static final class InvalidKeyArguments extends RuntimeException {
        InvalidKeyArguments() {
            super("Invalid arguments specified for command", null, false, false);
        }
    }

    /** One key at {@code index}. */
    public static KeySpec single(int index) {
        return new KeySpec(index, new Range(0, 1));
    }

    /** Keys from {@code first} to {@code last} (the legacy first/last/step triple of COMMAND). */
    public static KeySpec legacy(int first, int last, int step) {
        return new KeySpec(first, new Range(last < 0 ? last : last - first, step));
    }

    /** A key count at {@code index}, the keys right after it (ZUNION 2 a b, LMPOP 2 a b LEFT). */
    public static KeySpec counted(int index) {
        return new KeySpec(index, new KeyCount(0, 1, 1));
    }

    /** The keys after the first {@code keyword} from {@code startFrom} on, the first half of what follows. */
    public static KeySpec afterKeyword(String keyword, int startFrom) {
        return new KeySpec(startFrom, new Range(-1, 1, 2), keyword);
    }

    /** Reports the positions of this spec's keys in {@code args} (name at 0), in order. */
    public void forEachKey(byte[][] args, IntConsumer position) {
        int argc = args.length;
        int first = beginIndex;
        if (keyword != null) {
            first = -1;
            for (int i = beginIndex; i < argc && first < 0; i++) {
                if (Args.isKeyword(args[i], keyword)) {
                    first = i + 1;
                }
            }
            if (first < 0) {
                return;
            }
        }
        if (first >= argc) {
            return;
        }
        switch (find) {
            case Range r -> {
                int last = r.lastKey() >= 0 ? first + r.lastKey()
                        : r.limit() > 1 ? first + (argc - first) / r.limit() + r.lastKey() : argc + r.lastKey();
                for (int i = first; i <= last; i += r.step()) {
                    if (i < argc) { // a short variadic call: the command itself reports the arity
                        position.accept(i);
                    }
                }
            }
            case KeyCount k -> {
                int countAt = first + k.countOffset();
                Long count = countAt < argc ? Args.tryParseLong(args[countAt]) : null;
                if (count == null || count < 0 || count > argc) {
                    throw new InvalidKeyArguments();
                }
                int start = first + k.firstKeyOffset();
                long last = start + count * k.step() - 1;
                if (last >= argc) {
                    throw new InvalidKeyArguments();
                }
                for (int i = start; i <= last; i += k.step()) {
                    position.accept(i);
                }
            }
        }
    }

    /** Whether the keys' positions depend on the arguments (COMMAND's {@code movablekeys}). */
    boolean movable() {
        return find instanceof KeyCount || keyword != null;
    }

    /**
     * The legacy first/last/step triple Redis 7 derives from key specs: the range specs that begin at fixed
     * indexes, merged when they are contiguous; (0, 0, 0) when there are none.
     */
    static int[] legacyRange(List<KeySpec> specs) {
        int first = 0;
        int last = 0;
        int step = 0;
        for (KeySpec spec : specs) {
            if (!(spec.find instanceof Range r) || spec.keyword != null) {
                break; // what follows a counted group moves with it
            }
            int specLast = r.lastKey() < 0 ? r.lastKey() : spec.beginIndex + r.lastKey();
            if (first == 0) {
                first = spec.beginIndex;
                last = specLast;
                step = r.step();
            } else if (last >= 0 && spec.beginIndex == last + 1 && (r.step() == step || specLast == spec.beginIndex)) {
                last = specLast;
            } else {
                break;
            }
        }
        return new int[] {first, last, step};
    }
}

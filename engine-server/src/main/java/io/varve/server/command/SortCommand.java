package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.store.RedisType;
import io.varve.server.types.DataTypes;
import io.varve.server.types.Scored;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * SORT and SORT_RO over a list, set or sorted set: numeric or ALPHA order, BY an external key or hash field
 * pattern (none with {@code *} means "do not sort"), GET patterns ({@code #} the element itself), LIMIT, and
 * SORT's STORE into a list. Orders and edge cases follow redis-server's sort.c: numeric ties fall back to the
 * element's bytes, a missing BY value sorts as 0 (ALPHA: before every present one), DESC reverses the whole
 * comparison, and a set sorted for STORE without sorting is sorted ALPHA so the stored list is deterministic.
 */
final class SortCommand {

    static final String NOT_A_DOUBLE = "ERR One or more scores can't be converted into double";

    private SortCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("sort", -2, "write denyoom",
                List.of(KeySpec.single(1), new KeySpec(2, new KeySpec.StoreOption(List.of("store")))), c -> sort(c, false));
        // movablekeys as in Redis: BY and GET patterns name further keys, which no fixed position says
        b.add("sort_ro", -2, "readonly movablekeys", 1, 1, 1, c -> sort(c, true));
    }

    /** One element being sorted, with what it sorts by. */
    private record Item(byte[] element, double score, byte[] byValue) {
    }

    private static void sort(CommandCall c, boolean readOnly) {
        boolean desc = false;
        boolean alpha = false;
        boolean dontSort = false;
        long start = 0;
        long count = -1;
        byte[] by = null;
        byte[] store = null;
        List<byte[]> gets = new ArrayList<>();
        for (int j = 2; j < c.argCount(); j++) {
            int left = c.argCount() - j - 1;
            if (c.argIs(j, "asc")) {
                desc = false;
            } else if (c.argIs(j, "desc")) {
                desc = true;
            } else if (c.argIs(j, "alpha")) {
                alpha = true;
            } else if (c.argIs(j, "limit") && left >= 2) {
                start = c.argLong(j + 1);
                count = c.argLong(j + 2);
                j += 2;
            } else if (c.argIs(j, "store") && left >= 1 && !readOnly) {
                store = c.arg(++j);
            } else if (c.argIs(j, "by") && left >= 1) {
                by = c.arg(++j);
                if (indexOf(by, (byte) '*', 0) < 0) {
                    dontSort = true;
                }
            } else if (c.argIs(j, "get") && left >= 1) {
                gets.add(c.arg(++j));
            } else {
                throw RedisError.syntax();
            }
        }
        DataTypes types = c.types();
        byte[] key = c.arg(1);
        RedisType type = types.keys().type(key);
        if (type != null && type != RedisType.LIST && type != RedisType.SET && type != RedisType.ZSET) {
            throw RedisError.wrongType();
        }
        if (dontSort && type == RedisType.SET && store != null) {
            // A set's order is arbitrary; what is stored must not depend on it.
            dontSort = false;
            alpha = true;
            by = null;
        }
        List<byte[]> elements = switch (type == null ? RedisType.STRING : type) {
            case LIST -> types.lists().elements(key);
            case SET -> types.sets().members(key);
            case ZSET -> types.sortedSets().all(key).stream().map(Scored::member).toList();
            default -> List.of();
        };
        if (elements == null) {
            elements = List.of();
        }
        List<byte[]> ordered;
        if (dontSort) {
            ordered = new ArrayList<>(elements);
            if (desc && type != RedisType.SET) {
                Collections.reverse(ordered);
            }
        } else {
            ordered = sorted(types, elements, by, alpha, desc);
        }
        int size = ordered.size();
        long from = Math.max(0, start);
        long to = count < 0 ? size - 1 : from + count - 1;
        if (from >= size) {
            from = size - 1;
            to = size - 2;
        }
        if (to >= size) {
            to = size - 1;
        }
        List<byte[]> window = to >= from ? ordered.subList((int) from, (int) to + 1) : List.of();
        List<byte[]> output = new ArrayList<>();
        for (byte[] element : window) {
            if (gets.isEmpty()) {
                output.add(element);
            }
            for (byte[] pattern : gets) {
                output.add(lookup(types, pattern, element));
            }
        }
        if (store != null) {
            List<byte[]> stored = output.stream().map(v -> v == null ? new byte[0] : v).toList();
            c.reply().integer(types.lists().replaceWith(store, stored));
            return;
        }
        c.reply().arrayHeader(output.size());
        output.forEach(c.reply()::bulk);
    }

    private static List<byte[]> sorted(DataTypes types, List<byte[]> elements, byte[] by, boolean alpha,
                                       boolean desc) {
        List<Item> items = new ArrayList<>(elements.size());
        for (byte[] element : elements) {
            byte[] byValue = by == null ? null : lookup(types, by, element);
            double score = 0;
            if (!alpha) {
                byte[] source = by == null ? element : byValue;
                if (source != null) {
                    score = score(source);
                }
            }
            items.add(new Item(element, score, byValue));
        }
        Comparator<Item> order;
        if (!alpha) {
            order = Comparator.<Item>comparingDouble(Item::score).thenComparing(Item::element, Arrays::compareUnsigned);
        } else if (by != null) {
            order = Comparator.comparing(Item::byValue, Comparator.nullsFirst(Arrays::compareUnsigned));
        } else {
            order = Comparator.comparing(Item::element, Arrays::compareUnsigned);
        }
        items.sort(desc ? order.reversed() : order);
        return items.stream().map(Item::element).toList();
    }

    /** The number a SORT element or BY value holds, as strtod reads it; NaN and junk are errors. */
    private static double score(byte[] text) {
        int skip = 0;
        while (skip < text.length && Character.isWhitespace(text[skip])) {
            skip++;
        }
        if (text.length == 0) {
            return 0;
        }
        try {
            return Args.parseDouble(Arrays.copyOfRange(text, skip, text.length));
        } catch (RedisError notANumber) {
            throw new RedisError(NOT_A_DOUBLE);
        }
    }

    /**
     * What a BY or GET pattern names for {@code element}: {@code #} is the element; otherwise the first
     * {@code *} is replaced by it and the key read as a string, or, with {@code ->field} after the star, as
     * that hash field. Null when the pattern has no star, the key is absent or of another type.
     */
    static byte[] lookup(DataTypes types, byte[] pattern, byte[] element) {
        if (pattern.length == 1 && pattern[0] == '#') {
            return element;
        }
        int star = indexOf(pattern, (byte) '*', 0);
        if (star < 0) {
            return null;
        }
        int arrow = indexOfArrow(pattern, star + 1);
        byte[] field = null;
        int keyEnd = pattern.length;
        if (arrow >= 0 && arrow + 2 < pattern.length) {
            field = Arrays.copyOfRange(pattern, arrow + 2, pattern.length);
            keyEnd = arrow;
        }
        byte[] key = new byte[keyEnd - 1 + element.length];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(element, 0, key, star, element.length);
        System.arraycopy(pattern, star + 1, key, star + element.length, keyEnd - star - 1);
        RedisType type = types.keys().type(key);
        if (field != null) {
            return type == RedisType.HASH ? types.hashes().get(key, field) : null;
        }
        return type == RedisType.STRING ? types.strings().getIfString(key) : null;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static int indexOfArrow(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '-' && bytes[i + 1] == '>') {
                return i;
            }
        }
        return -1;
    }
}

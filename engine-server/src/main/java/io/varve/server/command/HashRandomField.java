package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * HRANDFIELD key [count [WITHVALUES]]: without a count one random field (nil when the key is absent); a positive
 * count asks for that many distinct fields (all of them if the hash is smaller), a negative one for |count| fields
 * that may repeat. The fields are read at one snapshot and sampled from it.
 */
final class HashRandomField {

    private HashRandomField() {
    }

    static void register(CommandTable.Builder b) {
        b.add("hrandfield", -2, "readonly random", 1, 1, 1, HashRandomField::hrandfield);
    }

    private static void hrandfield(CommandCall c) {
        boolean withValues = false;
        if (c.argCount() == 4) {
            if (!c.argIs(3, "withvalues")) {
                throw RedisError.syntax();
            }
            withValues = true;
        } else if (c.argCount() > 4) {
            throw RedisError.syntax();
        }
        boolean hasCount = c.argCount() >= 3;
        long count = hasCount ? c.argLong(2) : 1;
        if (count == Long.MIN_VALUE || count < -SetCommands.MAX_REPEATED_MEMBERS) {
            // Redis would build the reply however large; here one request must not exhaust the heap.
            throw new RedisError("ERR value is out of range, value must between -" + SetCommands.MAX_REPEATED_MEMBERS
                    + " and 9223372036854775807");
        }
        List<byte[][]> entries = new ArrayList<>();
        if (count != 0 || !hasCount) {
            c.types().hashes().forEach(c.arg(1), null, (field, value) -> entries.add(new byte[][] {field, value}));
        }
        Reply r = c.reply();
        if (!hasCount) {
            r.bulk(entries.isEmpty() ? null : entries.get(ThreadLocalRandom.current().nextInt(entries.size()))[0]);
            return;
        }
        List<byte[][]> picked = pick(entries, count);
        boolean pairs = withValues && r.resp3();
        r.arrayHeader(withValues && !pairs ? 2L * picked.size() : picked.size());
        for (byte[][] entry : picked) {
            if (pairs) {
                r.arrayHeader(2);
            }
            r.bulk(entry[0]);
            if (withValues) {
                r.bulk(entry[1]);
            }
        }
    }

    private static List<byte[][]> pick(List<byte[][]> entries, long count) {
        if (entries.isEmpty() || count == 0) {
            return List.of();
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (count < 0) {
            List<byte[][]> out = new ArrayList<>((int) -count);
            for (long i = 0; i < -count; i++) {
                out.add(entries.get(random.nextInt(entries.size())));
            }
            return out;
        }
        Collections.shuffle(entries, random);
        return entries.subList(0, (int) Math.min(count, entries.size()));
    }
}

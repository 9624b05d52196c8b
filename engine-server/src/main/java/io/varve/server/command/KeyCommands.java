package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.RedisType;
import io.varve.server.types.RedisKeys;

import java.util.Arrays;
import java.util.List;

/** Commands on keys of any type: DEL, EXISTS, TYPE, the EXPIRE family, TTL, PERSIST, RENAME, SCAN, KEYS. */
final class KeyCommands {

    private static final byte[] SCAN_OWNER = {'k'};

    private KeyCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("del", -2, "write", 1, -1, 1, KeyCommands::del);
        b.add("unlink", -2, "write fast", 1, -1, 1, KeyCommands::del);
        b.add("exists", -2, "readonly fast", 1, -1, 1, c -> {
            long n = 0;
            for (int i = 1; i < c.argCount(); i++) {
                n += c.types().keys().exists(c.arg(i)) ? 1 : 0;
            }
            c.reply().integer(n);
        });
        b.add("type", 2, "readonly fast", 1, 1, 1, c -> {
            RedisType type = c.types().keys().type(c.arg(1));
            c.reply().simple(type == null ? "none" : type.redisName());
        });
        b.add("expire", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.SECONDS));
        b.add("pexpire", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.MILLISECONDS));
        b.add("expireat", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.UNIX_SECONDS));
        b.add("pexpireat", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.UNIX_MILLISECONDS));
        b.add("ttl", 2, "readonly fast", 1, 1, 1, c -> ttl(c, false));
        b.add("pttl", 2, "readonly fast", 1, 1, 1, c -> ttl(c, true));
        b.add("expiretime", 2, "readonly fast", 1, 1, 1, c -> expireTime(c, false));
        b.add("pexpiretime", 2, "readonly fast", 1, 1, 1, c -> expireTime(c, true));
        b.add("touch", -2, "readonly fast", 1, -1, 1, KeyCommands::touch);
        b.add("randomkey", 1, "readonly random", c -> c.reply().bulk(io.varve.server.types.RandomKey.pick(c.keyspace(),
                c.server().routing().servedSlots().slots())));
        b.add("persist", 2, "write fast", 1, 1, 1, KeyCommands::persist);
        b.add("rename", 3, "write", 1, 2, 1, c -> rename(c, false));
        b.add("renamenx", 3, "write fast", 1, 2, 1, c -> rename(c, true));
        b.add("scan", -2, "readonly", KeyCommands::scan);
        b.add("keys", 2, "readonly", KeyCommands::keys);
    }

    private static void del(CommandCall c) {
        c.reply().integer(c.types().keys().delete(Arrays.asList(c.args()).subList(1, c.argCount())));
    }

    private static void expire(CommandCall c, Expiry.Unit unit) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        for (int i = 3; i < c.argCount(); i++) {
            if (c.argIs(i, "nx")) {
                nx = true;
            } else if (c.argIs(i, "xx")) {
                xx = true;
            } else if (c.argIs(i, "gt")) {
                gt = true;
            } else if (c.argIs(i, "lt")) {
                lt = true;
            } else {
                throw new RedisError("ERR Unsupported option " + c.argText(i));
            }
        }
        if (nx && (xx || gt || lt)) {
            throw new RedisError("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if (gt && lt) {
            throw new RedisError("ERR GT and LT options at the same time are not compatible");
        }
        long when = Expiry.absolute(c.argLong(2), unit, c.keyspace().now(), c.spec().name(), false);
        boolean set = c.types().keys().expireAt(c.arg(1), when, new RedisKeys.ExpiryRules(nx, xx, gt, lt));
        c.reply().integer(set ? 1 : 0);
    }

    private static void ttl(CommandCall c, boolean millis) {
        long left = c.types().keys().millisToLive(c.arg(1));
        c.reply().integer(left < 0 || millis ? left : (left + 500) / 1000);
    }

    private static void expireTime(CommandCall c, boolean millis) {
        long at = c.types().keys().expireAtMillis(c.arg(1));
        c.reply().integer(at < 0 || millis ? at : at / 1000);
    }

    /** TOUCH: how many of the keys exist (there is no access time to update). */
    private static void touch(CommandCall c) {
        long existing = 0;
        for (int i = 1; i < c.argCount(); i++) {
            existing += c.types().keys().exists(c.arg(i)) ? 1 : 0;
        }
        c.reply().integer(existing);
    }

    private static void persist(CommandCall c) {
        c.reply().integer(c.types().keys().persist(c.arg(1)) ? 1 : 0);
    }

    /** RENAME/RENAMENX; the move itself is {@link io.varve.server.types.RedisKeys#rename}'s. */
    private static void rename(CommandCall c, boolean onlyIfAbsent) {
        boolean renamed = c.types().keys().rename(c.arg(1), c.arg(2), onlyIfAbsent);
        if (onlyIfAbsent) {
            c.reply().integer(renamed ? 1 : 0);
        } else {
            c.reply().ok();
        }
    }

    /** Parses a SCAN/HSCAN cursor: an unsigned decimal, else {@code ERR invalid cursor}. */
    static long parseCursor(byte[] arg) {
        Long v = Args.tryParseLong(arg);
        if (v == null || v < 0) {
            throw new RedisError("ERR invalid cursor");
        }
        return v;
    }

    private static void scan(CommandCall c) {
        long cursor = parseCursor(c.arg(1));
        Glob glob = null;
        long count = 10;
        RedisType type = null;
        boolean typeGiven = false;
        for (int i = 2; i < c.argCount(); i += 2) {
            if (i + 1 >= c.argCount()) {
                throw RedisError.syntax();
            }
            if (c.argIs(i, "match")) {
                glob = new Glob(c.arg(i + 1));
            } else if (c.argIs(i, "count")) {
                count = c.argLong(i + 1);
                if (count < 1) {
                    throw RedisError.syntax();
                }
            } else if (c.argIs(i, "type")) {
                type = RedisType.ofName(c.argText(i + 1));
                typeGiven = true;
            } else {
                throw RedisError.syntax();
            }
        }
        byte[] resume = c.server().scanCursors().resume(SCAN_OWNER, cursor);
        Glob pattern = glob;
        RedisType wanted = type;
        boolean filtered = typeGiven;
        ServedSlots served = c.server().routing().servedSlots();
        RedisKeys.ScanPage page = c.types().keys().scan(resume, count, prefixOf(glob),
                key -> pattern == null || pattern.matches(key), t -> !filtered || t == wanted, served.slots());
        long next = page.resumeAfter() == null ? 0 : c.server().scanCursors().save(SCAN_OWNER, page.resumeAfter());
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(page.keys().size());
        page.keys().forEach(r::bulk);
    }

    /** The glob's literal prefix, which narrows the walk; empty when there is no glob. */
    private static byte[] prefixOf(Glob glob) {
        return glob == null ? new byte[0] : glob.literalPrefix();
    }

    private static void keys(CommandCall c) {
        Glob glob = new Glob(c.arg(1));
        ServedSlots served = c.server().routing().servedSlots();
        List<byte[]> found = c.types().keys().keys(prefixOf(glob), glob::matches, served.slots());
        c.reply().arrayHeader(found.size());
        found.forEach(c.reply()::bulk);
    }
}

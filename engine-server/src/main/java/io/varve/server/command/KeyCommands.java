package io.varve.server.command;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.util.ArrayList;
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
                n += c.keyspace().header(c.arg(i)) != null ? 1 : 0;
            }
            c.reply().integer(n);
        });
        b.add("type", 2, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().header(c.arg(1));
            c.reply().simple(meta == null ? "none" : meta.type().redisName());
        });
        b.add("expire", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.SECONDS));
        b.add("pexpire", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.MILLISECONDS));
        b.add("expireat", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.UNIX_SECONDS));
        b.add("pexpireat", -3, "write fast", 1, 1, 1, c -> expire(c, Expiry.Unit.UNIX_MILLISECONDS));
        b.add("ttl", 2, "readonly fast", 1, 1, 1, c -> ttl(c, false));
        b.add("pttl", 2, "readonly fast", 1, 1, 1, c -> ttl(c, true));
        b.add("persist", 2, "write fast", 1, 1, 1, KeyCommands::persist);
        b.add("rename", 3, "write", 1, 2, 1, c -> rename(c, false));
        b.add("renamenx", 3, "write fast", 1, 2, 1, c -> rename(c, true));
        b.add("scan", -2, "readonly", KeyCommands::scan);
        b.add("keys", 2, "readonly", KeyCommands::keys);
    }

    private static void del(CommandCall c) {
        Keyspace ks = c.keyspace();
        byte[][] keys = Arrays.copyOfRange(c.args(), 1, c.argCount());
        long removed = 0;
        try (LockStripes.Held held = ks.lockAll(keys)) {
            WriteBatch batch = new WriteBatch();
            List<byte[]> seen = new ArrayList<>();
            for (byte[] key : keys) {
                if (seen.stream().noneMatch(k -> Arrays.equals(k, key)) && ks.header(key) != null) {
                    ks.deleteMetadata(batch, key);
                    removed++;
                }
                seen.add(key);
            }
            ks.commit(batch);
        }
        c.reply().integer(removed);
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
        Keyspace ks = c.keyspace();
        long when = Expiry.absolute(c.argLong(2), unit, ks.now(), c.spec().name(), false);
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            // A key without expiry counts as expiring never, i.e. later than any time.
            boolean has = meta.hasExpiry();
            if ((nx && has) || (xx && !has) || (gt && (!has || when <= meta.expireAt()))
                    || (lt && has && when >= meta.expireAt())) {
                c.reply().integer(0);
                return;
            }
            WriteBatch batch = new WriteBatch();
            if (when <= ks.now()) {
                ks.deleteMetadata(batch, key);
            } else {
                ks.putMetadata(batch, key, meta.withExpireAt(when));
            }
            ks.commit(batch);
            c.reply().integer(1);
        }
    }

    private static void ttl(CommandCall c, boolean millis) {
        Keyspace ks = c.keyspace();
        Metadata meta = ks.header(c.arg(1));
        if (meta == null) {
            c.reply().integer(-2);
        } else if (!meta.hasExpiry()) {
            c.reply().integer(-1);
        } else {
            long left = Math.max(0, meta.expireAt() - ks.now());
            c.reply().integer(millis ? left : (left + 500) / 1000);
        }
    }

    private static void persist(CommandCall c) {
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lock(c.arg(1))) {
            Metadata meta = ks.lookup(c.arg(1));
            if (meta == null || !meta.hasExpiry()) {
                c.reply().integer(0);
                return;
            }
            WriteBatch batch = new WriteBatch();
            ks.putMetadata(batch, c.arg(1), meta.withExpireAt(0));
            ks.commit(batch);
            c.reply().integer(1);
        }
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
        Keyspace ks = c.keyspace();
        byte[] resume = c.server().scanCursors().resume(SCAN_OWNER, cursor);
        List<byte[]> found = new ArrayList<>();
        byte[] last = null;
        boolean exhausted;
        long now = ks.now();
        try (Snapshot snapshot = ks.snapshot(); DbIterator it = iteratorFor(ks, snapshot, glob)) {
            seekAfter(it, resume);
            long examined = 0;
            for (; it.valid() && examined < count; it.next(), examined++) {
                byte[] metaKey = it.key();
                last = metaKey;
                Metadata meta = Metadata.decodeHeader(it.value());
                byte[] key = KeyEncoding.userKeyOfMetadata(metaKey);
                if (meta.isExpired(now) || (typeGiven && meta.type() != type)
                        || (glob != null && !glob.matches(key))) {
                    continue;
                }
                found.add(key);
            }
            exhausted = !it.valid();
        }
        long next = exhausted ? 0 : c.server().scanCursors().save(SCAN_OWNER, last);
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(found.size());
        found.forEach(r::bulk);
    }

    /** A metadata iterator narrowed to the glob's literal prefix, if it has one. */
    private static DbIterator iteratorFor(Keyspace ks, Snapshot snapshot, Glob glob) {
        ReadOptions options = ReadOptions.at(snapshot);
        if (glob != null) {
            byte[] prefix = glob.literalPrefix();
            if (prefix.length > 0) {
                return ks.db().iterator(options.withLowerBound(KeyEncoding.metadataKey(prefix))
                        .withUpperBound(KeyEncoding.metadataPrefixEnd(prefix)));
            }
        }
        return ks.metadataIterator(options);
    }

    private static void seekAfter(DbIterator it, byte[] resumeMetaKey) {
        if (resumeMetaKey == null) {
            it.seekToFirst();
            return;
        }
        it.seek(resumeMetaKey);
        if (it.valid() && Arrays.equals(it.key(), resumeMetaKey)) {
            it.next();
        }
    }

    private static void keys(CommandCall c) {
        Glob glob = new Glob(c.arg(1));
        Keyspace ks = c.keyspace();
        List<byte[]> found = new ArrayList<>();
        long now = ks.now();
        try (Snapshot snapshot = ks.snapshot(); DbIterator it = iteratorFor(ks, snapshot, glob)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = KeyEncoding.userKeyOfMetadata(it.key());
                if (!Metadata.decodeHeader(it.value()).isExpired(now) && glob.matches(key)) {
                    found.add(key);
                }
            }
        }
        c.reply().arrayHeader(found.size());
        found.forEach(c.reply()::bulk);
    }
}

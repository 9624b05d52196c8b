package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.types.DataTypes;
import io.varve.server.types.DumpFormat;
import io.varve.server.types.RedisKeys;
import io.varve.server.types.RedisSortedSets;

import java.util.ArrayList;
import java.util.List;

/**
 * DUMP and RESTORE in Redis's serialization ({@link DumpFormat}). RESTORE holds the key's lock from the check
 * for an existing key to the last write, so no other writer interleaves; its writes (the old value's deletion,
 * the elements, the expiry) are separate commits, so a reader may see the key absent in between.
 */
final class DumpCommands {

    private DumpCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("dump", 2, "readonly", 1, 1, 1, DumpCommands::dump);
        b.add("restore", -4, "write denyoom", 1, 1, 1, DumpCommands::restore);
    }

    private static void dump(CommandCall c) {
        byte[] key = c.arg(1);
        Metadata meta = c.keyspace().lookup(key);
        if (meta == null) {
            c.reply().nil();
            return;
        }
        DataTypes types = c.types();
        List<byte[]> items = new ArrayList<>();
        double[][] scores = {null};
        switch (meta.type()) {
            case STRING -> items.add(meta.value());
            case LIST -> items.addAll(types.lists().elements(key));
            case SET -> types.sets().forEach(key, null, member -> items.add(member));
            case HASH -> types.hashes().forEach(key, null, (field, value) -> items.add(field) && items.add(value));
            case ZSET -> {
                List<Double> collected = new ArrayList<>();
                types.sortedSets().forEachByMember(key, null, (member, score) -> {
                    items.add(member);
                    return collected.add(score);
                });
                scores[0] = collected.stream().mapToDouble(Double::doubleValue).toArray();
            }
            case STREAM -> {
                c.reply().error("ERR DUMP of a stream is not supported");
                return;
            }
        }
        if (items.isEmpty()) {
            c.reply().nil(); // went away between the lookup and the read
            return;
        }
        c.reply().bulk(DumpFormat.encode(new DumpFormat.Value(meta.type(), items, scores[0])));
    }

    /** RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency], with Redis's checks. */
    private static void restore(CommandCall c) {
        boolean replace = false;
        boolean absoluteTtl = false;
        boolean idle = false;
        boolean freq = false;
        for (int i = 4; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (c.argIs(i, "replace")) {
                replace = true;
            } else if (c.argIs(i, "absttl")) {
                absoluteTtl = true;
            } else if (c.argIs(i, "idletime") && more && !freq) {
                if (c.argLong(++i) < 0) {
                    throw new RedisError("ERR Invalid IDLETIME value, must be >= 0");
                }
                idle = true;
            } else if (c.argIs(i, "freq") && more && !idle) {
                long f = c.argLong(++i);
                if (f < 0 || f > 255) {
                    throw new RedisError("ERR Invalid FREQ value, must be >= 0 and <= 255");
                }
                freq = true;
            } else {
                throw RedisError.syntax();
            }
        }
        byte[] key = c.arg(1);
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lock(key)) {
            if (!replace && ks.header(key) != null) {
                throw new RedisError("BUSYKEY Target key name already exists.");
            }
            long ttl = c.argLong(2);
            if (ttl < 0) {
                throw new RedisError("ERR Invalid TTL value, must be >= 0");
            }
            byte[] payload = c.arg(3);
            if (!DumpFormat.footerValid(payload)) {
                throw new RedisError("ERR DUMP payload version or checksum are wrong");
            }
            DumpFormat.Value value;
            try {
                value = DumpFormat.decode(payload);
            } catch (DumpFormat.BadFormatException e) {
                throw new RedisError("ERR Bad data format");
            }
            RedisKeys keys = c.types().keys();
            keys.delete(List.of(key));
            long expireAt = ttl == 0 ? 0 : absoluteTtl ? ttl : ks.now() + ttl;
            if (expireAt != 0 && expireAt <= ks.now()) {
                c.reply().ok(); // already expired: Redis deletes the old value and creates nothing
                return;
            }
            write(c.types(), key, value, expireAt);
            if (expireAt != 0 && value.type() != io.varve.server.store.RedisType.STRING) {
                keys.expireAt(key, expireAt, new RedisKeys.ExpiryRules(false, false, false, false));
            }
        }
        ks.blocking().signal(ks.databases().physical(c.connection().database()), key);
        c.reply().ok();
    }

    private static void write(DataTypes types, byte[] key, DumpFormat.Value value, long expireAt) {
        List<byte[]> items = value.items();
        switch (value.type()) {
            case STRING -> types.strings().set(key, items.getFirst(), expireAt);
            case LIST -> types.lists().push(key, false, false, items);
            case SET -> types.sets().add(key, items);
            case HASH -> types.hashes().set(key, items, false);
            case ZSET -> types.sortedSets().add(key, value.scores(), items,
                    new RedisSortedSets.AddRules(false, false, false, false, false));
        }
    }
}

package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.types.RedisHyperLogLogs;
import io.varve.server.types.hyperloglog.HyperLogLog;

import java.util.Arrays;
import java.util.List;

/** PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST over {@link RedisHyperLogLogs}. */
final class HyperLogLogCommands {

    private HyperLogLogCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("pfadd", -2, "write denyoom fast", 1, 1, 1,
                c -> c.reply().integer(c.types().hyperLogLogs().add(c.arg(1), rest(c, 2)) ? 1 : 0));
        b.add("pfcount", -2, "readonly may_replicate", 1, -1, 1, HyperLogLogCommands::count);
        b.add("pfmerge", -2, "write denyoom", 1, -1, 1, c -> {
            c.types().hyperLogLogs().merge(c.arg(1), rest(c, 2));
            c.reply().ok();
        });
        b.add("pfdebug", 3, "write denyoom admin", 2, 2, 1, HyperLogLogCommands::debug);
        b.add("pfselftest", 1, "admin", c -> c.reply().ok());
    }

    private static List<byte[]> rest(CommandCall c, int first) {
        return Arrays.asList(c.args()).subList(first, c.argCount());
    }

    private static void count(CommandCall c) {
        RedisHyperLogLogs hlls = c.types().hyperLogLogs();
        if (c.argCount() > 2) {
            c.reply().integer(hlls.countUnion(rest(c, 1)));
            return;
        }
        // A replica serving reads must not write: it answers the estimate and leaves the cache stale.
        c.reply().integer(hlls.count(c.arg(1), !c.server().routing().replicated()));
    }

    private static void debug(CommandCall c) {
        String sub = c.argText(1);
        RedisHyperLogLogs hlls = c.types().hyperLogLogs();
        HyperLogLog hll = hlls.inspect(c.arg(2));
        if (hll == null) {
            throw new RedisError("ERR The specified key does not exist");
        }
        if (c.argIs(1, "getreg")) {
            byte[] registers = hlls.makeDense(c.arg(2), new boolean[1]).registers();
            c.reply().arrayHeader(registers.length);
            for (byte r : registers) {
                c.reply().integer(r);
            }
        } else if (c.argIs(1, "decode")) {
            if (hll.isDense()) {
                throw new RedisError("ERR HLL encoding is not sparse");
            }
            c.reply().bulk(hll.decodeSparse());
        } else if (c.argIs(1, "encoding")) {
            c.reply().simple(hll.isDense() ? "dense" : "sparse");
        } else if (c.argIs(1, "todense")) {
            boolean[] converted = new boolean[1];
            hlls.makeDense(c.arg(2), converted);
            c.reply().integer(converted[0] ? 1 : 0);
        } else {
            throw new RedisError("ERR Unknown PFDEBUG subcommand '" + sub + "'");
        }
    }
}

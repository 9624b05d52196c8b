package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.util.List;
import java.util.Locale;

/** SLOWLOG GET [count] | LEN | RESET | HELP over the dispatcher's {@link SlowLog}. */
final class SlowLogCommand {

    private SlowLogCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("slowlog", -2, "", (CoordinatedHandler) SlowLogCommand::slowlog);
        b.subcommand("slowlog", "get", -2, "admin loading stale");
        b.subcommand("slowlog", "len", 2, "admin loading stale");
        b.subcommand("slowlog", "reset", 2, "admin loading stale");
        b.subcommand("slowlog", "help", 2, "loading stale");
    }

    private static void slowlog(CommandCall c, Dispatcher d) {
        SlowLog log = d.slowLog();
        Reply r = c.reply();
        switch (c.argText(1).toLowerCase(Locale.ROOT)) {
            case "get" -> {
                if (c.argCount() > 3) {
                    throw RedisError.wrongArity("slowlog|get");
                }
                long count = 10;
                if (c.argCount() == 3) {
                    count = c.argLong(2);
                    if (count < -1) {
                        throw new RedisError("ERR count should be greater than or equal to -1");
                    }
                }
                List<SlowLog.Entry> entries = log.newest(count);
                r.arrayHeader(entries.size());
                for (SlowLog.Entry e : entries) {
                    r.arrayHeader(6);
                    r.integer(e.id());
                    r.integer(e.unixSeconds());
                    r.integer(e.micros());
                    r.arrayHeader(e.args().size());
                    e.args().forEach(r::bulk);
                    r.bulk(e.client());
                    r.bulk(e.name());
                }
            }
            case "len" -> r.integer(log.length());
            case "reset" -> {
                log.reset();
                r.ok();
            }
            case "help" -> {
                List<String> lines = List.of("SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                        "GET [<count>]", "LEN", "RESET", "HELP");
                r.arrayHeader(lines.size());
                lines.forEach(r::simple);
            }
            default -> throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try SLOWLOG HELP.");
        }
    }
}

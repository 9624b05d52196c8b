package io.varve.server;

import io.varve.server.command.CommandSpec;
import io.varve.server.command.Dispatcher;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What INFO commandstats and errorstats report: calls, time, rejections and failures per command, and error
 * replies per error code (the first word: ERR, WRONGTYPE, NOAUTH ...). Passes every observation on to the
 * metrics registry when there is one. Error codes are capped at {@value #MAX_ERROR_CODES}, as Redis caps
 * them, so clients cannot grow the table with invented codes; later codes are not tracked.
 */
final class CommandStats implements Dispatcher.Observer {

    static final int MAX_ERROR_CODES = 128;

    /** One command's counters. */
    static final class Counters {
        final LongAdder calls = new LongAdder();
        final LongAdder nanos = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder failed = new LongAdder();
    }

    private final Dispatcher.Observer next;
    private final ConcurrentHashMap<String, Counters> commands = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();

    CommandStats(Dispatcher.Observer next) {
        this.next = next;
    }

    private Counters of(CommandSpec spec) {
        return commands.computeIfAbsent(spec.name(), n -> new Counters());
    }

    @Override
    public void executed(CommandSpec spec, long nanos, boolean failed) {
        Counters c = of(spec);
        c.calls.increment();
        c.nanos.add(nanos);
        if (failed) {
            c.failed.increment();
        }
        next.executed(spec, nanos, failed);
    }

    @Override
    public void failedAfterParking(CommandSpec spec) {
        of(spec).failed.increment();
        next.failedAfterParking(spec);
    }

    @Override
    public void rejected() {
        next.rejected();
    }

    @Override
    public void rejectedCall(CommandSpec spec) {
        of(spec).rejected.increment();
        next.rejectedCall(spec);
    }

    @Override
    public void errorReplied(String error) {
        int space = error.indexOf(' ');
        String code = space < 0 ? error : error.substring(0, space);
        LongAdder count = errors.get(code);
        if (count == null && errors.size() < MAX_ERROR_CODES) {
            count = errors.computeIfAbsent(code, c -> new LongAdder());
        }
        if (count != null) {
            count.increment();
        }
        next.errorReplied(error);
    }

    /** INFO commandstats lines, by command name. */
    Map<String, Object> commandLines() {
        Map<String, Object> out = new TreeMap<>();
        commands.forEach((name, c) -> {
            long calls = c.calls.sum();
            long usec = c.nanos.sum() / 1000;
            out.put("cmdstat_" + name, "calls=" + calls + ",usec=" + usec + ",usec_per_call="
                    + String.format(Locale.ROOT, "%.2f", calls == 0 ? 0.0 : (double) usec / calls)
                    + ",rejected_calls=" + c.rejected.sum() + ",failed_calls=" + c.failed.sum());
        });
        return out;
    }

    /** INFO errorstats lines, by error code. */
    Map<String, Object> errorLines() {
        Map<String, Object> out = new TreeMap<>();
        errors.forEach((code, n) -> out.put("errorstat_" + code, "count=" + n.sum()));
        return out;
    }

    long totalErrorReplies() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** CONFIG RESETSTAT. */
    void reset() {
        commands.clear();
        errors.clear();
    }
}

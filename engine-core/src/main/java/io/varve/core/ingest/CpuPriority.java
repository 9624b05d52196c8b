package io.varve.core.ingest;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * The operating-system CPU priority of threads the engine starts for work that can wait, such as checking
 * the files of an ingestion: how readily that work gives a core up to the application's threads.
 *
 * <p>Why more than a Java thread priority: the JDK ignores those on Linux unless started as root with
 * {@code -XX:ThreadPriorityPolicy=1}. What the levels do under Linux's EEVDF scheduler (kernel 6.6 and
 * later): a normal thread waking from I/O can take the core from a running application thread; a thread at
 * nice 19 gets a far virtual deadline and does not, and a {@code SCHED_IDLE} thread never does and also gives
 * its core up at once to any normal thread that wakes (docs/benchmarks.md, "Ingestion at idle priority").
 * The same levels as RocksDB's {@code Env::LowerThreadPoolCPUPriority}.
 *
 * <p>Applied through {@code java.lang.foreign} calls into the C library, never JNI. Elsewhere than Linux, or
 * when native access is denied ({@code --illegal-native-access=deny}), the thread stays at normal priority and
 * a warning is logged once. To call without the JDK's warning about restricted methods, start the JVM with
 * {@code --enable-native-access=ALL-UNNAMED} (engine-core has no module descriptor).
 */
public enum CpuPriority {

    /** The priority of the thread that started the work: nothing is changed. */
    NORMAL,
    /** Nice 19: the smallest share of the CPU when cores are contended; does not preempt normal threads on waking. */
    LOW,
    /**
     * {@code SCHED_IDLE}: never takes a core from a normal thread, gives its core up at once to any that wakes,
     * and runs on what the other threads leave. On a machine whose cores are all busy the work can take far longer than at normal priority.
     */
    IDLE;

    private static final System.Logger LOG = System.getLogger(CpuPriority.class.getName());
    private static volatile boolean warned;

    /**
     * Sets the calling thread's OS priority to this level. Linux lets a thread lower its own priority but
     * not raise it back without privileges, so call this only at the start of a thread dedicated to such work.
     *
     * @return whether the thread now runs at this level (always true for {@link #NORMAL})
     */
    public boolean applyToCurrentThread() {
        if (this == NORMAL) {
            return true;
        }
        String failure;
        try {
            failure = Native.apply(this);
        } catch (RuntimeException | LinkageError e) {
            failure = e.toString();
        }
        if (failure != null && !warned) {
            warned = true;
            LOG.log(System.Logger.Level.WARNING, "cannot run threads at CPU priority {0}, they run at normal "
                    + "priority: {1}", this, failure);
        }
        return failure == null;
    }

    /** The C library calls, linked on first use so that a JVM that never lowers a thread never links them. */
    private static final class Native {
        private static final int PRIO_PROCESS = 0;
        private static final int NICE_LOWEST = 19;
        private static final int SCHED_IDLE = 5;
        private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
                .startsWith("linux");
        private static final MethodHandle GETTID;
        private static final MethodHandle SETPRIORITY;
        private static final MethodHandle SCHED_SETSCHEDULER;

        static {
            if (LINUX) {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                GETTID = linker.downcallHandle(libc.findOrThrow("gettid"), FunctionDescriptor.of(ValueLayout.JAVA_INT));
                SETPRIORITY = linker.downcallHandle(libc.findOrThrow("setpriority"), FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                SCHED_SETSCHEDULER = linker.downcallHandle(libc.findOrThrow("sched_setscheduler"),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                                ValueLayout.ADDRESS));
            } else {
                GETTID = SETPRIORITY = SCHED_SETSCHEDULER = null;
            }
        }

        /** Null on success, else why not. */
        static String apply(CpuPriority priority) {
            if (!LINUX) {
                return "only supported on Linux";
            }
            try {
                // Linux schedules threads, not processes: both calls, given a thread's id (or 0, the caller),
                // change that thread alone.
                int result;
                if (priority == LOW) {
                    int tid = (int) GETTID.invokeExact();
                    result = (int) SETPRIORITY.invokeExact(PRIO_PROCESS, tid, NICE_LOWEST);
                } else {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment param = arena.allocate(ValueLayout.JAVA_INT); // sched_priority 0
                        result = (int) SCHED_SETSCHEDULER.invokeExact(0, SCHED_IDLE, param);
                    }
                }
                return result == 0 ? null : "the system call returned " + result;
            } catch (Throwable t) {
                return t.toString();
            }
        }
    }
}

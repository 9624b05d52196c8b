package io.varve.base;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records every arena, mapping, file and background thread a database owns while it is open, so that tests can
 * fail when something outlives its owner's {@code close()}, naming what it is, who owned it and where it was
 * acquired (Netty's {@code ResourceLeakDetector} is the model).
 *
 * <p>Off by default: then {@link #track} returns one shared no-op handle and costs a volatile read, so the
 * engine can call it on every acquisition. Tests switch it on with the system property
 * {@value #PROPERTY}{@code =true} (the build sets it for every test run) or {@link #enable()}.
 *
 * <p>The owner of a resource calls {@link #track} when it acquires the resource and {@link Handle#close()}
 * exactly when it releases it; closing twice is harmless. Only coarse, long-lived resources are tracked (one
 * per arena, table mapping, open file, thread), never per-operation objects.
 */
public final class LeakDetector {

    /** The system property that switches tracking on for the whole JVM. */
    public static final String PROPERTY = "varve.leakDetection";

    private static final Set<Handle> OPEN = ConcurrentHashMap.newKeySet();
    private static final Handle NOT_TRACKED = new Handle("untracked", "", null);
    private static volatile boolean enabled = Boolean.getBoolean(PROPERTY);

    private LeakDetector() {
    }

    /** Starts tracking resources acquired from now on (those acquired before stay untracked). */
    public static void enable() {
        enabled = true;
    }

    public static boolean enabled() {
        return enabled;
    }

    /**
     * Registers a resource just acquired.
     *
     * @param kind  what it is: "arena", "mapping", "file", "thread"
     * @param owner who must release it, e.g. the database directory or file name
     */
    public static Handle track(String kind, Object owner) {
        if (!enabled) {
            return NOT_TRACKED;
        }
        Handle handle = new Handle(kind, String.valueOf(owner), new Throwable("acquired here"));
        OPEN.add(handle);
        return handle;
    }

    /** Every tracked resource not yet released, in no particular order. */
    public static List<Handle> open() {
        return new ArrayList<>(OPEN);
    }

    /** The tracked resources still open whose owner description contains {@code ownerPart}. */
    public static List<Handle> openOwnedBy(String ownerPart) {
        List<Handle> result = new ArrayList<>();
        for (Handle handle : OPEN) {
            if (handle.owner.contains(ownerPart)) {
                result.add(handle);
            }
        }
        return result;
    }

    /** A readable report of {@code leaks}: kind, owner and the stack that acquired each. */
    public static String describe(List<Handle> leaks) {
        StringBuilder report = new StringBuilder(leaks.size() + " resource(s) still open:");
        for (Handle handle : leaks) {
            report.append("\n- ").append(handle.kind).append(" owned by ").append(handle.owner);
            if (handle.site != null) {
                for (StackTraceElement frame : handle.site.getStackTrace()) {
                    report.append("\n      at ").append(frame);
                }
            }
        }
        return report.toString();
    }

    /** One tracked resource; {@link #close()} when the resource itself is released. */
    public static final class Handle implements AutoCloseable {
        private final String kind;
        private final String owner;
        private final Throwable site;

        private Handle(String kind, String owner, Throwable site) {
            this.kind = kind;
            this.owner = owner;
            this.site = site;
        }

        public String kind() {
            return kind;
        }

        public String owner() {
            return owner;
        }

        @Override
        public void close() {
            if (site != null) {
                OPEN.remove(this);
            }
        }

        @Override
        public String toString() {
            return kind + " owned by " + owner;
        }
    }
}

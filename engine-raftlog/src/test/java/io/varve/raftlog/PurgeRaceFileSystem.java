package io.varve.raftlog;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Runs a test's action at the moment a purge is about to make its retired files' new names durable: the
 * directory sync that follows renames to {@code *.recycle}, on the thread that did them. The action runs
 * before that sync, so whatever it does (typically a write on another thread that rolls to a new file) sees
 * the recycle renames still unsynced.
 */
final class PurgeRaceFileSystem extends ForwardingFileSystem {

    /** What runs in the window; may throw to end the purge as a crash would. */
    interface Race {
        void run() throws IOException;
    }

    private final ThreadLocal<Boolean> renamedToRecycle = ThreadLocal.withInitial(() -> false);
    private volatile Race race;
    /** Run instead of a rename that gives a recycled file its new name, e.g. to crash just before it. */
    private volatile Race beforeReuseRename;

    PurgeRaceFileSystem(FileSystem delegate) {
        super(delegate);
    }

    /** Arms the next window (null disarms). The race runs once. */
    void onNextWindow(Race action) {
        this.race = action;
    }

    /** Runs {@code action} at the next rename of a {@code *.recycle} file, which it may fail by throwing. */
    void beforeNextReuseRename(Race action) {
        this.beforeReuseRename = action;
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        Race r = beforeReuseRename;
        if (r != null && source.getFileName().toString().endsWith(".recycle")) {
            beforeReuseRename = null;
            r.run();
        }
        super.rename(source, target);
        if (target.getFileName().toString().endsWith(".recycle")) {
            renamedToRecycle.set(true);
        }
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        if (renamedToRecycle.get()) {
            renamedToRecycle.set(false);
            Race r = race;
            if (r != null) {
                race = null;
                r.run();
            }
        }
        super.syncDirectory(dir);
    }
}

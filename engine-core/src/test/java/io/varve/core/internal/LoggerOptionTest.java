package io.varve.core.internal;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a database tells the logger {@link Options#withLogger} gives it: routine events quietly, loss loudly. */
class LoggerOptionTest {

    private static final Path DIR = Path.of("/db");

    /** Keeps every record, formatted. */
    static final class RecordingLogger implements System.Logger {
        record Entry(Level level, String message) {
        }

        final List<Entry> entries = new CopyOnWriteArrayList<>();

        @Override
        public String getName() {
            return "recording";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            entries.add(new Entry(level, message));
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            entries.add(new Entry(level, params == null ? format : MessageFormat.format(format, params)));
        }

        List<Entry> atOrAbove(Level level) {
            return entries.stream().filter(e -> e.level().getSeverity() >= level.getSeverity()).toList();
        }
    }

    @Test
    void routineOpenWriteAndCloseLogNothingAboveDebug() throws Exception {
        RecordingLogger logger = new RecordingLogger();
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withLogger(logger);
        for (int open = 0; open < 2; open++) {
            try (Db db = Db.open(DIR, options)) {
                db.put("k".getBytes(), "v".getBytes());
                db.flush();
            }
        }
        try (Db db = Db.openReadOnly(DIR, options)) {
            db.get("k".getBytes());
        }
        assertEquals(List.of(), logger.atOrAbove(System.Logger.Level.INFO));
        assertTrue(logger.entries.stream().anyMatch(e -> e.message().startsWith("opened " + DIR)),
                "the open is reported at DEBUG: " + logger.entries);
    }

    @Test
    void recoveryThatDropsWritesWarnsTheGivenLogger() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs))) {
            db.put("small".getBytes(), "v".getBytes());
            db.put("big".getBytes(), new byte[64]);
        }
        RecordingLogger logger = new RecordingLogger();
        Options options = Options.defaults().withFileSystem(fs).withLogger(logger);
        ScopedValue.where(WalReplay.ENTRY_LIMIT, 16L).call(() -> {
            Db.open(DIR, options).close();
            return null;
        });
        List<RecordingLogger.Entry> warnings = logger.atOrAbove(System.Logger.Level.WARNING);
        assertTrue(warnings.getFirst().message().contains(DbFiles.LOG_SUFFIX)
                && warnings.getFirst().message().contains("offset"), warnings.toString());
    }
}

package io.varve.core;

import io.varve.base.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * micrometer-core is optional: a database opened without a registry must work where Micrometer is absent.
 * The scenario runs in a class loader that sees only engine-core, its two required dependencies and this
 * module's test classes, with the platform loader (not the application loader) as parent.
 */
class WithoutMicrometerTest {

    /** Runs inside the isolated loader: only JDK and engine-core types, no test framework. */
    public static final class Scenario implements Function<String, String> {
        @Override
        public String apply(String directory) {
            try (Db db = Db.open(Path.of(directory), Options.defaults().withWriteBufferSize(64 << 10))) {
                for (int i = 0; i < 2000; i++) {
                    db.put(("key-" + i).getBytes(), ("value-" + i).getBytes());
                }
                db.flush();
                db.compactRange(null, null);
                int count = 0;
                try (DbIterator it = db.iterator()) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        count++;
                    }
                }
                return count + " " + new String(db.get("key-1234".getBytes()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** Exposes which classes it has loaded itself. */
    private static final class IsolatedLoader extends URLClassLoader {
        IsolatedLoader(URL... urls) {
            super("no-micrometer", urls, ClassLoader.getPlatformClassLoader());
        }

        boolean hasLoaded(String name) {
            return findLoadedClass(name) != null;
        }
    }

    private static URL locationOf(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    @Test
    @SuppressWarnings("unchecked")
    void openWriteFlushAndReadWorkWithoutMicrometerOnTheClassPath(@TempDir Path dir) throws Exception {
        try (IsolatedLoader loader = new IsolatedLoader(locationOf(Db.class), locationOf(FileSystem.class),
                locationOf(WithoutMicrometerTest.class),
                locationOf(org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue.class))) {
            assertThrows(ClassNotFoundException.class,
                    () -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"),
                    "the loader must really lack Micrometer, or this test proves nothing");

            Class<?> scenario = loader.loadClass(Scenario.class.getName());
            assertEquals(loader, scenario.getClassLoader());
            Function<String, String> run = (Function<String, String>) scenario.getConstructor().newInstance();
            assertEquals("2000 value-1234", run.apply(dir.toString()));

            assertNotNull(loader.loadClass(Options.class.getName()));
            assertEquals(true, loader.hasLoaded("io.varve.core.internal.DbStatistics"), "the statistics were set up");
            assertNull(loader.findResource("io/micrometer/core/instrument/MeterRegistry.class"));
            assertEquals(false, loader.hasLoaded("io.varve.core.internal.metrics.MicrometerMeters"),
                    "without a registry the Micrometer binding is never loaded");
        }
    }
}

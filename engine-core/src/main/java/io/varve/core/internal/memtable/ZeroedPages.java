package io.varve.core.internal.memtable;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Zero-filled off-heap memory for memtables, taken from the operating system as anonymous pages where it can
 * be, so that only the pages a memtable writes are ever zeroed and resident.
 *
 * <p>Why: {@link Arena#allocate} zeroes the whole segment before returning it. A memtable is sized for the
 * most it may hold (the write buffer, 64 MiB by default) and one is made for every family at every open and
 * at every rotation, so that zeroing was most of the CPU an open took, and every open family was resident at
 * its full write-buffer size however little it held. An anonymous private mapping ({@code mmap}) keeps the
 * same promise — memory nobody wrote reads as zeros — and the kernel pays it one page at a time, on first
 * touch, as RocksDB's arena pays it one block at a time.
 *
 * <p>Used on Linux when the JVM grants this code native access ({@code --enable-native-access=ALL-UNNAMED},
 * as {@code bin/varve} and the tests start it); otherwise, or if linking or mapping fails, the memory comes
 * from {@link Arena#allocate}. Without the grant the C library is never called, so an embedding application
 * sees no warning from the JDK about restricted methods. A mapping is unmapped by its arena's close (the
 * cleanup action of {@link MemorySegment#reinterpret(long, Arena, java.util.function.Consumer)}), so the
 * segment keeps the arena's single owner, lifetime and liveness checks. Calls into the C library through
 * {@code java.lang.foreign}, never JNI.
 */
final class ZeroedPages {

    /** Mappings are page-aligned; larger alignments than this go to the arena. */
    private static final long PAGE_ALIGNMENT = 4096;
    private static final Mapper MAPPER = Mapper.link();

    private ZeroedPages() {
    }

    /** A zero-filled segment of {@code bytes}, aligned to {@code alignment}, freed when {@code arena} closes. */
    static MemorySegment allocate(Arena arena, long bytes, long alignment) {
        if (MAPPER != null && bytes > 0 && alignment <= PAGE_ALIGNMENT) {
            MemorySegment mapped = MAPPER.map(arena, bytes);
            if (mapped != null) {
                return mapped;
            }
        }
        return arena.allocate(bytes, alignment);
    }

    /** Whether memory comes from anonymous mappings in this JVM (for tests). */
    static boolean mapsPages() {
        return MAPPER != null;
    }

    /** {@code mmap} and {@code munmap} from the C library, linked once if this JVM may call them. */
    private record Mapper(MethodHandle mmap, MethodHandle munmap) {
        // Linux's values on every architecture the JDK supports.
        private static final int PROT_READ = 0x1;
        private static final int PROT_WRITE = 0x2;
        private static final int MAP_PRIVATE = 0x02;
        private static final int MAP_ANONYMOUS = 0x20;
        private static final long MAP_FAILED = -1L;

        static Mapper link() {
            boolean linux = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
            if (!linux || !ZeroedPages.class.getModule().isNativeAccessEnabled()) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                MethodHandle mmap = linker.downcallHandle(libc.findOrThrow("mmap"), FunctionDescriptor.of(
                        ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                MethodHandle munmap = linker.downcallHandle(libc.findOrThrow("munmap"), FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                return new Mapper(mmap, munmap);
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }

        /** The mapping as a segment of {@code arena}, or null if the kernel refused it. */
        MemorySegment map(Arena arena, long bytes) {
            MemorySegment address;
            try {
                address = (MemorySegment) mmap.invokeExact(MemorySegment.NULL, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
            } catch (Throwable t) {
                return null;
            }
            long at = address.address();
            if (at == MAP_FAILED) {
                return null;
            }
            try {
                return address.reinterpret(bytes, arena, unused -> unmap(at, bytes));
            } catch (RuntimeException e) {
                unmap(at, bytes);
                throw e;
            }
        }

        private void unmap(long at, long bytes) {
            try {
                int ignored = (int) munmap.invokeExact(MemorySegment.ofAddress(at), bytes);
            } catch (Throwable t) {
                // munmap fails only for a range that is not a mapping; nothing is left to release.
            }
        }
    }
}

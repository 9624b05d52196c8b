package io.varve.replication.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's I/O accounting of this process ({@code /proc/self/io}, Linux only). */
final class ProcessIo {
    private static final Path FILE = Path.of("/proc/self/io");

    private ProcessIo() {
    }

    /** Bytes of page cache this process dirtied for writing to a block device (storage, not sockets). */
    static long writeBytes() throws IOException {
        for (String line : Files.readAllLines(FILE)) {
            if (line.startsWith("write_bytes:")) {
                return Long.parseLong(line.substring("write_bytes:".length()).trim());
            }
        }
        throw new IOException("no write_bytes in " + FILE);
    }
}

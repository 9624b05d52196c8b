package io.varve.server;

import com.sun.management.OperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's CPU time for INFO cpu. */
final class ProcessCpu {

    /** Linux reports utime and stime in clock ticks, 100 per second on every mainstream configuration. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessCpu() {
    }

    /** {user, system} CPU seconds used by this process so far. */
    static double[] userAndSystemSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // Fields after the command name, which is in parentheses and may itself contain spaces.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new double[] {Long.parseLong(fields[11]) / TICKS_PER_SECOND, Long.parseLong(fields[12]) / TICKS_PER_SECOND};
        } catch (IOException | RuntimeException notLinux) {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
                return new double[] {os.getProcessCpuTime() / 1e9, 0};
            }
            return new double[] {0, 0};
        }
    }
}

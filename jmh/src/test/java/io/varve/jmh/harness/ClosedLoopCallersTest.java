package io.varve.jmh.harness;

import io.varve.jmh.harness.ClosedLoopCallers.Caller;
import io.varve.jmh.harness.ClosedLoopCallers.Driver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every driver runs every caller, counts exactly the operations done, stops them all, and reports a failure. */
class ClosedLoopCallersTest {

    @ParameterizedTest
    @EnumSource(Driver.class)
    void countsEveryCompletedOperationAndStopsEveryCaller(Driver driver) throws Exception {
        int callers = 64;
        AtomicLongArray perCaller = new AtomicLongArray(callers);
        List<Caller> list = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            int id = i;
            list.add(() -> perCaller.incrementAndGet(id));
        }
        ClosedLoopCallers running = new ClosedLoopCallers(driver, list);
        long before = running.completed();
        running.awaitCompletions(50_000);
        assertTrue(running.completed() - before >= 50_000);
        running.stop();

        long sum = 0;
        for (int i = 0; i < callers; i++) {
            sum += perCaller.get(i);
        }
        // After stop() every caller has finished: the count is final and matches the operations done.
        assertEquals(sum, running.completed());
        long[] snapshot = new long[callers];
        for (int i = 0; i < callers; i++) {
            snapshot[i] = perCaller.get(i);
        }
        assertEquals(sum, running.completed());
        for (int i = 0; i < callers; i++) {
            assertEquals(snapshot[i], perCaller.get(i), "caller " + i + " ran after stop()");
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aCallersFailureReachesTheWaiterAndStop(Driver driver) {
        IllegalStateException boom = new IllegalStateException("boom");
        AtomicLong calls = new AtomicLong();
        ClosedLoopCallers running = new ClosedLoopCallers(driver, List.of(() -> {
            if (calls.incrementAndGet() == 100) {
                throw boom;
            }
        }));
        IllegalStateException waited = assertThrows(IllegalStateException.class,
                () -> running.awaitCompletions(1_000_000));
        assertSame(boom, waited.getCause());
        IllegalStateException stopped = assertThrows(IllegalStateException.class, running::stop);
        assertSame(boom, stopped.getCause());
    }
}

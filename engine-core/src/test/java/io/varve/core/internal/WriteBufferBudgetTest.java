package io.varve.core.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The flush rule when two threads apply it at once. Only one thread seals at a time; a thread that finds the
 * budget filling while another is sealing hands its request over instead of dropping it. Dropped, four
 * writers over three databases could all end up waiting for a budget full of mutable memtables that no thread
 * was left to seal: the sealer had been asked for an earlier state, and its flush had already ended.
 */
class WriteBufferBudgetTest {

    private static final long BUDGET = 8_000;

    /** A member whose sizes the test sets; a flush request seals its mutable bytes, then runs {@code onRequest}. */
    private static final class TestDb implements WriteBufferBudget.Source {
        volatile long mutable;
        volatile long immutable;
        volatile Runnable onRequest = () -> {
        };
        final AtomicInteger flushRequests = new AtomicInteger();

        @Override
        public boolean measure(long[] into) {
            into[0] = mutable;
            into[1] = mutable + immutable;
            return true;
        }

        @Override
        public boolean failed() {
            return false;
        }

        @Override
        public void requestFlush() {
            flushRequests.incrementAndGet();
            immutable += mutable;
            mutable = 0;
            onRequest.run();
        }
    }

    @Test
    void aFlushRequestMadeWhileAnotherThreadSealsIsCarriedOutByThatThread() throws Exception {
        WriteBufferBudget budget = new WriteBufferBudget(BUDGET);
        TestDb first = new TestDb();
        TestDb second = new TestDb();
        WriteBufferBudget.Member firstMember = budget.join(first);
        WriteBufferBudget.Member secondMember = budget.join(second);
        CountDownLatch sealing = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        first.onRequest = () -> {
            sealing.countDown();
            awaitUninterruptibly(resume);
        };

        first.mutable = BUDGET;
        Thread sealer = new Thread(firstMember::afterWrite, "sealer");
        sealer.start();
        sealing.await(); // the sealer asked the first member to flush and has not let go yet

        // Meanwhile that flush ends and writes fill the second member: the rule now wants it sealed.
        first.immutable = 0;
        firstMember.refresh();
        second.mutable = BUDGET;
        secondMember.afterWrite();
        assertEquals(0, second.flushRequests.get(), "the second member's request was made while the sealer held the rule");

        resume.countDown();
        sealer.join();
        assertEquals(1, first.flushRequests.get());
        assertEquals(1, second.flushRequests.get(), "the request made while another thread sealed was dropped");
        assertEquals(BUDGET, budget.usedBytes());
        assertEquals(0, budget.mutableBytes(), "both members' memtables are sealed, their flushes under way");
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

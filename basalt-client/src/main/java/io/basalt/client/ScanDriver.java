package io.basalt.client;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs a {@link ScanConsumer} over a {@link ResultScanner} on a virtual thread: the thread blocks
 * while a batch is fetched and while the consumer has the scan suspended, so a suspended scan
 * holds no platform thread and asks the server for nothing.
 */
final class ScanDriver implements ScanController {

    private final ResultScanner scanner;
    private final ScanConsumer consumer;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition resumed = lock.newCondition();
    // Guarded by lock.
    private long suspensions;
    private long resumes;
    private volatile boolean terminated;

    private ScanDriver(ResultScanner scanner, ScanConsumer consumer) {
        this.scanner = scanner;
        this.consumer = consumer;
    }

    static void start(ResultScanner scanner, ScanConsumer consumer) {
        ScanDriver driver = new ScanDriver(scanner, consumer);
        Thread.ofVirtual().name("basalt-scan").start(driver::run);
    }

    private void run() {
        try (scanner) {
            while (!terminated) {
                awaitResumed();
                Result row = scanner.next();
                if (row == null) {
                    break;
                }
                consumer.onNext(row, this);
            }
        } catch (Throwable t) {
            consumer.onError(t);
            return;
        }
        consumer.onComplete();
    }

    private void awaitResumed() throws InterruptedException {
        lock.lock();
        try {
            while (resumes < suspensions && !terminated) {
                resumed.await();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Resumer suspend() {
        lock.lock();
        try {
            suspensions++;
            long ticket = suspensions;
            return () -> {
                lock.lock();
                try {
                    if (resumes < ticket) {
                        resumes = ticket;
                        resumed.signalAll();
                    }
                } finally {
                    lock.unlock();
                }
            };
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void terminate() {
        terminated = true;
        lock.lock();
        try {
            resumed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}

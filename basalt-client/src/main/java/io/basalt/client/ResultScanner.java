package io.basalt.client;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The rows of a scan, one {@link Result} at a time, in scan order. {@link #next()} blocks the
 * calling thread while the next batch is fetched. Not thread-safe: one consumer at a time.
 */
public interface ResultScanner extends Iterable<Result>, AutoCloseable {

    /** The next row, or {@code null} when the scan is over. */
    Result next();

    /** Releases what the scan holds (snapshot, buffers, server lease). Idempotent. */
    @Override
    void close();

    @Override
    default Iterator<Result> iterator() {
        return new Iterator<>() {
            private Result next = ResultScanner.this.next();

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public Result next() {
                if (next == null) {
                    throw new NoSuchElementException("the scan is over");
                }
                Result current = next;
                next = ResultScanner.this.next();
                return current;
            }
        };
    }
}

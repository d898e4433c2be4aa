package io.basalt.client;

/** What a {@link ScanConsumer} can do from inside {@link ScanConsumer#onNext}. */
public interface ScanController {

    /**
     * Stops delivering rows after the current one until {@link Resumer#resume()} is called (from
     * any thread). While suspended the scan fetches nothing more than the batch it already asked
     * for, so memory stays bounded by the scan's {@code maxResultSize}.
     */
    Resumer suspend();

    /** Ends the scan after the current row; {@link ScanConsumer#onComplete()} follows. */
    void terminate();

    /** Restarts a suspended scan. */
    interface Resumer {
        /** Idempotent; calling it before {@code onNext} returned is fine. */
        void resume();
    }
}

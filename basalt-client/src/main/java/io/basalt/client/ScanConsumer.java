package io.basalt.client;

/**
 * Receives a scan's rows as they arrive ({@link AsyncTable#scan(Scan, ScanConsumer)}). Calls come
 * from one thread at a time, in scan order: {@link #onNext} for each row, then exactly one of
 * {@link #onComplete} or {@link #onError}.
 */
public interface ScanConsumer {

    /**
     * One row. To stop the flow for a while, call {@link ScanController#suspend()} and keep the
     * resumer; to end the scan early, {@link ScanController#terminate()}.
     */
    void onNext(Result row, ScanController controller);

    /** The scan failed; no more calls follow. */
    void onError(Throwable error);

    /** Every row was delivered, or the scan was terminated; no more calls follow. */
    void onComplete();
}

package io.basalt.client;

/** When an embedded store acknowledges a write. */
public enum Durability {
    /**
     * After the write-ahead log is forced to disk ({@code fsync}); concurrent writers share one
     * force (group commit). An acknowledged write survives a crash of the process or the machine.
     */
    SYNC,
    /**
     * After the write reaches the operating system; the log is forced periodically. An
     * acknowledged write survives a crash of the process, not necessarily of the machine.
     */
    ASYNC
}

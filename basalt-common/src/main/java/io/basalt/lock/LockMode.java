package io.basalt.lock;

/** How a resource is locked: shared with other readers, or exclusively. */
public enum LockMode {
    /** Shared: any number of threads may hold a stripe for reading at once. */
    READ,
    /** Exclusive: one thread holds the stripe, no reader holds it. */
    WRITE
}

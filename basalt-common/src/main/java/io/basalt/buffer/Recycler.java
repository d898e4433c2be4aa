package io.basalt.buffer;

/** Takes back the memory of an allocation whose reference count reached zero; called exactly once per allocation. */
@FunctionalInterface
interface Recycler {

    /** For heap memory: the garbage collector frees it, nothing to give back. */
    Recycler HEAP = refCount -> { };

    void recycle(RefCount refCount);
}

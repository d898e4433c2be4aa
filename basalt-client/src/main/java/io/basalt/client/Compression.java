package io.basalt.client;

/** How a column family's SSTable blocks are compressed on disk. */
public enum Compression {
    /** Blocks are stored as they are. */
    NONE,
    /** LZ4 block compression: cheap to decode, about 2x on typical keys and values. */
    LZ4
}

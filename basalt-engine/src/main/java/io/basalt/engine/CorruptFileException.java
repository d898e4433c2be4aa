package io.basalt.engine;

import io.basalt.client.BasaltException;
import java.nio.file.Path;

/**
 * A file of the store failed a check (checksum, magic, version, length): named with the file and
 * the offset, and never read as data.
 */
public final class CorruptFileException extends BasaltException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;

    public CorruptFileException(Path file, long offset, String problem) {
        super(file + " is damaged at offset " + offset + ": " + problem);
        this.file = file;
        this.offset = offset;
    }

    public Path file() {
        return file;
    }

    public long offset() {
        return offset;
    }
}

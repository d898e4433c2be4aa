package io.basalt.client;

import io.basalt.client.spi.EmbeddedStoreProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ServiceLoader;

/** Where a program starts: opens an embedded store in a directory. */
public final class Basalt {

    private Basalt() {}

    /** Opens (creating if needed) the embedded store in {@code directory} with default options. */
    public static Connection open(Path directory) {
        return open(directory, StoreOptions.defaults());
    }

    /**
     * Opens (creating if needed) the embedded store in {@code directory}. One process at a time
     * may open a directory.
     *
     * @throws BasaltException when {@code basalt-engine} is not on the class path, the directory
     *     is in use, or its files are damaged
     */
    public static Connection open(Path directory, StoreOptions options) {
        EmbeddedStoreProvider provider = ServiceLoader.load(EmbeddedStoreProvider.class).findFirst()
                .orElseThrow(() -> new BasaltException("no embedded store on the class path: add the basalt-engine"
                        + " module to open a store in " + directory));
        try {
            return provider.open(directory, options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the store in " + directory + ": " + e.getMessage(), e);
        }
    }
}

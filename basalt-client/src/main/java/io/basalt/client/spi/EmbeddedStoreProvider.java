package io.basalt.client.spi;

import io.basalt.client.Connection;
import io.basalt.client.StoreOptions;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Opens embedded stores. {@code basalt-engine} provides the implementation through
 * {@link java.util.ServiceLoader}, so the client API does not depend on the engine.
 */
public interface EmbeddedStoreProvider {

    Connection open(Path directory, StoreOptions options) throws IOException;
}

package io.basalt.engine;

import io.basalt.client.Connection;
import io.basalt.client.StoreOptions;
import io.basalt.client.spi.EmbeddedStoreProvider;
import java.io.IOException;
import java.nio.file.Path;

/** Opens embedded stores for {@link io.basalt.client.Basalt#open}; found through ServiceLoader. */
public final class EngineStoreProvider implements EmbeddedStoreProvider {

    /** Public for {@link java.util.ServiceLoader}. */
    public EngineStoreProvider() {}

    @Override
    public Connection open(Path directory, StoreOptions options) throws IOException {
        return new EmbeddedConnection(Store.open(directory, options, System::currentTimeMillis, new StripedRegionLocks()));
    }
}

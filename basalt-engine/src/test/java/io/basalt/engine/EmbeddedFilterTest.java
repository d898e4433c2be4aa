package io.basalt.engine;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.FilterContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The {@link FilterContract} against the embedded store. */
class EmbeddedFilterTest extends FilterContract {

    @TempDir
    Path dir;

    @Override
    protected Connection connect() {
        return Basalt.open(dir);
    }
}

package io.basalt.engine;

import io.basalt.client.AsyncTableContract;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The {@link AsyncTableContract} against the embedded store. */
class EmbeddedTableTest extends AsyncTableContract {

    @TempDir
    Path dir;

    @Override
    protected Connection connect() {
        return Basalt.open(dir);
    }
}

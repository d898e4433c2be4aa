package io.basalt.engine;

import java.io.IOException;

/**
 * A manifest edit failed in a way that leaves its outcome on disk unknown (its append failed and
 * so did rolling to a snapshot without it): the next open may or may not find it applied. The
 * manifest takes no more edits, and whoever made the edit keeps every file it named.
 */
final class ManifestBrokenException extends IOException {

    private static final long serialVersionUID = 1L;

    ManifestBrokenException(String message, Throwable cause) {
        super(message, cause);
    }
}

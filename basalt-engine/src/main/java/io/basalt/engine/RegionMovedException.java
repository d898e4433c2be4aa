package io.basalt.engine;

/**
 * An operation reached a region that a split or merge had replaced, before it changed anything;
 * the table routes it again. Never leaves the engine. One shared instance, without a stack trace:
 * it is control flow, thrown on a race that is rare but may repeat under load.
 */
final class RegionMovedException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    static final RegionMovedException INSTANCE = new RegionMovedException();

    private RegionMovedException() {
        super("the region was replaced by a split or merge", null, false, false);
    }
}

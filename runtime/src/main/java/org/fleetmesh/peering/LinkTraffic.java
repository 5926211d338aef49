package org.fleetmesh.peering;

/** Counts what crosses an authenticated link, each way: messages and their UTF-8 bytes. Called on the link's thread. */
public interface LinkTraffic {
    LinkTraffic NONE = new LinkTraffic() {
        @Override
        public void received(long bytes) {
        }

        @Override
        public void sent(long bytes) {
        }
    };

    void received(long bytes);

    void sent(long bytes);
}

package org.fleetmesh.peering.link;

import java.util.List;

/**
 * What carries events over one link once its budget admitted them: the delivery protocol (docs/spec/delivery.md,
 * {@code org.fleetmesh.delivery}): signed frames, custody receipts, federation filters, store-and-forward. The link
 * ({@link EventLink}) keeps the budget, the grants and the violations; the carrier gets what the budget let through.
 * Calls come on the link's thread, in order, except {@link #grantChanged} and {@link #suspended}, which may come from
 * the window timer.
 */
public interface Carrier {

    /**
     * An admitted {@code MESH-EVENTS} frame: its {@code seq}, its header object's JSON text as sent, the events' JSON
     * texts as sent (as many as the header announced), and the frame's UTF-8 bytes. The carrier answers it on the wire
     * (a receipt, {@code MESH-EVENTS-OK} or {@code MESH-EVENTS-REFUSED}).
     */
    void frame(long seq, String headerJson, List<String> events, long bytes);

    /**
     * A message of another type, already charged against the budget. True when the carrier serves {@code type} (and
     * has answered it as needed); false lets the link answer {@code unsupported}.
     */
    boolean receive(String type, String text);

    /** The grant the peer gave this node changed (the pacer was retargeted): queued frames may go. */
    default void grantChanged() {
    }

    /** The peer suspended its grant to this node: send nothing more on this link. */
    default void suspended() {
    }

    /** The link closed; nothing arrives after it. */
    default void closed() {
    }

    /** Opens the carrier of each link, right after its grant was offered. */
    @FunctionalInterface
    interface Carriers {
        /** No carrier: frames go straight to ingest and are answered {@code MESH-EVENTS-OK} (link-events.md). */
        Carriers NONE = (wire, account) -> null;

        /** The carrier of a link whose peer has just authenticated, or null for none. It may send at once. */
        Carrier open(EventLink.Wire wire, PeerAccount account);

        /**
         * Several carriers on one link (delivery, then shard replication): frames go to the first one opened, a
         * message to each in turn until one serves it, and the link's events to all of them.
         */
        static Carriers all(List<Carriers> each) {
            List<Carriers> copy = List.copyOf(each);
            return (wire, account) -> {
                List<Carrier> opened = new java.util.ArrayList<>(copy.size());
                for (Carriers c : copy) {
                    Carrier one = c.open(wire, account);
                    if (one != null) {
                        opened.add(one);
                    }
                }
                return opened.isEmpty() ? null : opened.size() == 1 ? opened.get(0) : new Several(opened);
            };
        }
    }

    /** The carriers of {@link Carriers#all}. */
    final class Several implements Carrier {
        private final List<Carrier> each;

        Several(List<Carrier> each) {
            this.each = each;
        }

        @Override
        public void frame(long seq, String headerJson, List<String> events, long bytes) {
            each.get(0).frame(seq, headerJson, events, bytes);
        }

        @Override
        public boolean receive(String type, String text) {
            for (Carrier c : each) {
                if (c.receive(type, text)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void grantChanged() {
            each.forEach(Carrier::grantChanged);
        }

        @Override
        public void suspended() {
            each.forEach(Carrier::suspended);
        }

        @Override
        public void closed() {
            each.forEach(Carrier::closed);
        }
    }
}

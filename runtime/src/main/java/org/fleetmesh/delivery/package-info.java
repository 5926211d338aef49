/**
 * Delivery between meshnodes (docs/spec/delivery.md): federation filters, signed frames, the custody exchange,
 * receipts on the link and store-and-forward over the event store's sequence, with multi-hop. Pure: the link, the
 * relay's ingest, the store, the ledgers, the io executor and the clock come in as parameters; the custody log itself
 * is {@code org.fleetmesh.delivery.log}, the Quarkus edge {@code org.fleetmesh.delivery.quarkus}.
 */
package org.fleetmesh.delivery;

/**
 * What runs on an authenticated {@code /mesh} link (docs/spec/link-events.md): event frames metered against the grant
 * this node gave the peer before anything past their header is read, per-event answers, violations and quarantine
 * with an evidence record, grant negotiation in DIDComm v2 messages, the peer's tier, its strain ledger and an
 * outbound pacer. Pure: the link, the relay's ingest, the store and the clock come in as parameters.
 */
package org.fleetmesh.peering.link;

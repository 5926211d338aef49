/**
 * The custody log (docs/spec/custody.md): RFC 9162 Merkle trees over the event ids a receiver took from a sender,
 * kind 11803 receipts carrying C2SP checkpoints of them, custody proofs, the sender's checks of a receipt and the
 * evidence of a breach. Pure: values in, values out.
 */
package org.fleetmesh.delivery.log;

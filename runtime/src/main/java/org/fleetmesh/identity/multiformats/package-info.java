/**
 * The multiformats encodings DIDs are built from: base58btc, multibase ({@code z}, {@code f}), unsigned varints,
 * the multicodec table entries in use, and SHA2-256 multihashes. Bytes in, text out and back; nothing else.
 */
package org.fleetmesh.identity.multiformats;

package org.fleetmesh.identity.didcomm;

import java.util.List;

import org.fleetmesh.identity.Multikey;

/**
 * Public keys by key id (a DID URL with a fragment), checked against the verification relationship DIDComm
 * needs: {@code keyAgreement} for the recipients' and the authcrypt sender's keys, {@code authentication} for a
 * signer's key (DIDComm Messaging v2.1 §Key IDs, §Message Signing). {@link DidDocumentKeys} reads them from DID
 * documents.
 */
public interface KeyResolver {
    /**
     * @throws DidcommException UNRESOLVABLE_DID, UNKNOWN_KEY (no such verification method), KEY_NOT_AUTHORIZED
     *         (not listed under keyAgreement), MALFORMED or UNSUPPORTED for its key material
     */
    Multikey keyAgreementKey(String kid) throws DidcommException;

    /** As {@link #keyAgreementKey}, for the {@code authentication} relationship. */
    Multikey authenticationKey(String kid) throws DidcommException;

    /** The kids of every keyAgreement method of {@code did}, in document order: the default recipients. */
    List<String> keyAgreementKids(String did) throws DidcommException;
}

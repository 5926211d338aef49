-- fleetmesh declared peers, schema 6 (docs/spec/delivery.md, "Federation"; docs/OPERATING.md, admin API).
--
-- federate: the NIP-01 filters (a JSON array) this node asks the peer to forward, when the operator gave this peer
-- its own through the admin API; null: the node's fleetmesh.delivery.federate applies.

alter table mesh_peer add column federate text;

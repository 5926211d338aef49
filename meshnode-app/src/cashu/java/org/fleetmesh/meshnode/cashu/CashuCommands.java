package org.fleetmesh.meshnode.cashu;

import java.util.Arrays;
import java.util.List;

import org.fleetmesh.meshnode.AdapterCommand;
import org.fleetmesh.meshnode.LocalNode;
import org.fleetmesh.settlement.cashu.cli.CashuCommand;
import org.fleetmesh.spi.storage.EventStore;

/** {@code cashu ...} (the node's wallet) and {@code bench cashu}: in the app only with the Cashu adapter. */
public final class CashuCommands implements AdapterCommand {
    @Override
    public String adapter() {
        return "cashu";
    }

    @Override
    public List<String> names() {
        return List.of("cashu", "bench cashu");
    }

    @Override
    public int run(String[] args) throws Exception {
        if (args[0].equals("bench")) {
            CashuBench.main(Arrays.copyOfRange(args, 2, args.length));
            return 0;
        }
        return wallet(args);
    }

    /** {@code cashu ...}: the node's Cashu wallet, on the relay's database and seed (the database opened when needed). */
    static int wallet(String[] args) {
        EventStore[] opened = { null };
        try {
            return new CashuCommand(LocalNode::setting, () -> {
                opened[0] = LocalNode.openStore();
                if (opened[0] instanceof org.fleetmesh.storage.postgres.PostgresStorage pg) {
                    return new org.fleetmesh.storage.postgres.cashu.PgCashuStore(pg.dataSource());
                }
                throw new IllegalStateException("this storage backend keeps no Cashu wallet");
            }, System.out, System.err).run(args);
        } finally {
            if (opened[0] != null) {
                opened[0].close();
            }
        }
    }
}

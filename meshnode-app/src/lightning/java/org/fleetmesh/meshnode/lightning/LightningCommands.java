package org.fleetmesh.meshnode.lightning;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import org.fleetmesh.meshnode.AdapterCommand;
import org.fleetmesh.meshnode.UsageException;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11;
import org.fleetmesh.settlement.lightning.bolt11.Bolt11Exception;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12;
import org.fleetmesh.settlement.lightning.bolt12.Bolt12Exception;

/** {@code bolt11 decode} and {@code bolt12 decode}: in the app only with the Lightning adapter. */
public final class LightningCommands implements AdapterCommand {
    /** The BOLT #11 donation example, which {@code bench crypto} decodes. */
    private static final String DONATION = "lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Override
    public String adapter() {
        return "lightning";
    }

    @Override
    public List<String> names() {
        return List.of("bolt11", "bolt12");
    }

    @Override
    public int run(String[] args) throws JsonProcessingException {
        return args[0].equals("bolt11") ? bolt11(args) : bolt12(args);
    }

    @Override
    public Optional<Callable<Object>> cryptoBenchOp() {
        return Optional.of(() -> Bolt11.decode(DONATION));
    }

    /** {@code bolt11 decode <invoice>}: the decoded invoice as JSON, or the reason it is invalid. */
    static int bolt11(String[] args) throws JsonProcessingException {
        if (args.length != 3 || !args[1].equals("decode")) {
            throw new UsageException("bolt11 takes: decode <invoice>");
        }
        try {
            System.out.println(JSON.writeValueAsString(Bolt11.decode(args[2].trim()).toJson()));
            return 0;
        } catch (Bolt11Exception e) {
            System.err.println("meshnode: invalid invoice: " + e.getMessage());
            return 1;
        }
    }

    /** {@code bolt12 decode <offer|invoice_request|invoice>}: the decoded message as JSON, or why it is invalid. */
    static int bolt12(String[] args) throws JsonProcessingException {
        if (args.length != 3 || !args[1].equals("decode")) {
            throw new UsageException("bolt12 takes: decode <string>");
        }
        try {
            System.out.println(JSON.writeValueAsString(Bolt12.decode(args[2].trim()).toJson()));
            return 0;
        } catch (Bolt12Exception e) {
            System.err.println("meshnode: invalid bolt12 string: " + e.getMessage());
            return 1;
        }
    }
}

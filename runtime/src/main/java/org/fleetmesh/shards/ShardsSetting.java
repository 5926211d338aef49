package org.fleetmesh.shards;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.fleetmesh.nostr.FilterSyntaxException;
import org.fleetmesh.nostr.Snippet;

/**
 * The declared shards setting ({@code FLEETMESH_SHARDS}, docs/spec/shards.md §1): a JSON array of
 * {@code {"id", "filter", "mode"}}. Refusals name the shard (1-based) and the rule it breaks.
 */
public final class ShardsSetting {
    /** Shards one node declares at most (each is a live index and a claim). */
    public static final int MAX_SHARDS = 64;
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ShardsSetting() {
    }

    /** The shards {@code json} declares, in its order; a blank text declares none. */
    public static List<Shard> parse(String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("is not JSON: a JSON array of {\"id\", \"filter\", \"mode\"}");
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("is a JSON array of {\"id\", \"filter\", \"mode\"}");
        }
        if (root.size() > MAX_SHARDS) {
            throw new IllegalArgumentException("declares " + root.size() + " shards, at most " + MAX_SHARDS);
        }
        List<Shard> out = new ArrayList<>(root.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < root.size(); i++) {
            Shard s;
            try {
                s = shard(root.get(i));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("shard " + (i + 1) + ": " + e.getMessage());
            }
            if (!ids.add(s.id())) {
                throw new IllegalArgumentException("shard " + (i + 1) + ": duplicate id \"" + s.id() + "\"");
            }
            out.add(s);
        }
        return List.copyOf(out);
    }

    /** One {@code {"id", "filter", "mode"}} object (the admin API's body too); the filter is an object or its JSON text. */
    public static Shard shard(JsonNode o) {
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException("a shard is an object {\"id\", \"filter\", \"mode\"}");
        }
        var names = o.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!n.equals("id") && !n.equals("filter") && !n.equals("mode")) {
                throw new IllegalArgumentException("unknown field \"" + Snippet.of(n, 64) + "\" (a shard has id, filter, mode)");
            }
        }
        JsonNode id = o.get("id");
        if (id == null || !id.isTextual()) {
            throw new IllegalArgumentException("id must be a string");
        }
        String idText = id.textValue();
        checkId(idText);
        JsonNode mode = o.get("mode");
        Shard.Mode m = mode != null && mode.isTextual() ? Shard.Mode.of(mode.textValue()) : null;
        if (m == null) {
            throw new IllegalArgumentException("mode must be \"asserted\" or \"replicated\"");
        }
        JsonNode filter = o.get("filter");
        String filterJson;
        if (filter != null && filter.isObject()) {
            filterJson = filter.toString();
        } else if (filter != null && filter.isTextual()) {
            filterJson = filter.textValue();
        } else {
            throw new IllegalArgumentException("filter must be a NIP-01 filter object");
        }
        try {
            return new Shard(idText, ShardFilter.parse(filterJson), m);
        } catch (FilterSyntaxException e) {
            throw new IllegalArgumentException("filter: " + e.reason());
        }
    }

    /** Refuses an id that is not 1 to 64 characters of {@code [A-Za-z0-9._:-]}. */
    public static void checkId(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("id must be 1 to 64 characters of [A-Za-z0-9._:-]"
                    + (id == null ? "" : ", not \"" + Snippet.of(id, 64) + "\""));
        }
    }

    /** True when {@code id} is a valid shard id. */
    public static boolean isId(String id) {
        return id != null && ID.matcher(id).matches();
    }
}

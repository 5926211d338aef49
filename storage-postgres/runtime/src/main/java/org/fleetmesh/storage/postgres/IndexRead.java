package org.fleetmesh.storage.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.Reader;

/**
 * A read that one index alone answers, its events' JSON then taken from the {@link EventCache} (docs/spec/storage.md
 * "Reads from an index"): a filter with a limit and no {@code ids}, and either one single-letter tag of one value
 * ({@code tag_value_idx}: {@code (name, value, created_at desc, event_seq) include (kind)}), optionally {@code kinds};
 * or no tag, at most one author and at most one kind (the ordering indexes of {@code event}, which since V13 carry
 * {@code seq}, and {@code kind} where it is not a key); {@code since} and {@code until} either way. The statement is an
 * index-only scan of at most {@code limit + 1} entries, whatever the table holds.
 *
 * <p>Pure: the statements to send, and {@link #answer} decides from the rows and the entries what to send, or that the
 * read must be the full statement after all (a tie on {@code created_at} across the limit, which NIP-01 breaks by the
 * lowest id and an index does not; an expired event the full statement would skip and replace).
 */
final class IndexRead {
    /**
     * The largest limit read this way: one round trip's worth. Larger reads (e.g. the relay's default limit of 500)
     * were measured slower this way on a cache smaller than what they read (a 500-event window of time over 200,000
     * events with the default cache: p50 2.9 ms ordinary, 3.7 ms fetching what the cache lacked, 4.6 ms falling back
     * when it lacked more than a quarter), so they take the ordinary statement, which streams.
     */
    static final int MAX_LIMIT = EventReader.ONE_SHOT_MAX_ROWS - 1;

    /** The scan: {@code seq, created_at}, newest first, {@link #limit} + 1 rows at most. */
    final SqlFilter.Sql scan;
    final int limit;
    /** A read of one author's events: the author's key, else null; and the one kind it is limited to, else null. */
    private final byte[] author;
    private final Integer authorKind;
    /** A read of one tag value: the tag's letter, else 0. */
    final char tagName;

    private IndexRead(SqlFilter.Sql scan, int limit, byte[] author, Integer authorKind, char tagName) {
        this.scan = scan;
        this.limit = limit;
        this.author = author;
        this.authorKind = authorKind;
        this.tagName = tagName;
    }

    private static final String TAG_SCAN = "select t.event_seq, t.created_at from tag t where ";

    /**
     * A tag read's scan with the events joined: {@code seq, created_at, expires_at}, then {@link SqlFilter#columns}, the
     * same rows in the same order (each scanned entry's event by {@code event_seq_idx}), in one round trip instead of the
     * scan's and the fetch's. For tags whose values name few events (an {@code e} tag's replies and reactions), where a
     * second round trip costs more than reading the few rows whether cached or not.
     */
    SqlFilter.Sql scanWithEvents() {
        if (tagName == 0 || !scan.text().startsWith(TAG_SCAN)) {
            throw new IllegalStateException("not a tag read: " + scan.text());
        }
        return new SqlFilter.Sql("select t.event_seq, t.created_at, e.expires_at, " + SqlFilter.columns("e")
                + " from tag t join event e on e.seq = t.event_seq where " + scan.text().substring(TAG_SCAN.length()),
                scan.params());
    }

    /**
     * The read of {@code f} for {@code reader} from one index, or null when the filter asks for more than an index
     * entry holds (or is better left to {@link SqlFilter}).
     */
    static IndexRead plan(Filter f, Reader reader) {
        Integer limit = f.limit();
        if (limit == null || limit < 1 || limit > MAX_LIMIT || f.ids() != null
                || f.tags().size() > 1 || f.matchesNothingStored()) {
            return null;
        }
        Set<Integer> gated = Set.of();
        if (!reader.seesAll()) {
            gated = new TreeSet<>(reader.privateKinds());
            if (f.kinds() != null) {
                gated.retainAll(f.kinds());
            }
            if (!gated.isEmpty() && !reader.pubkeys().isEmpty()) {
                return null; // "addressed to or written by the reader" needs the event's pubkey and p tags
            }
        }
        List<Object> params = new ArrayList<>();
        StringBuilder sql;
        byte[] author = null;
        char tagName = 0;
        String a; // the alias whose created_at and kind the conditions name
        if (f.tags().size() == 1) {
            Map.Entry<String, Set<String>> tag = f.tags().entrySet().iterator().next();
            if (tag.getKey().length() != 1 || tag.getValue().size() != 1 || f.authors() != null) {
                return null;
            }
            a = "t";
            tagName = tag.getKey().charAt(0);
            sql = new StringBuilder(TAG_SCAN + "t.name = ? and t.value = ?");
            params.add(tag.getKey());
            params.add(TextKeys.valueBytes(TextKeys.key(tag.getValue().iterator().next())));
        } else {
            if ((f.authors() != null && f.authors().size() != 1) || (f.kinds() != null && f.kinds().size() != 1)) {
                return null; // several: a merge of ranges, the ordinary statement's business
            }
            a = "e";
            sql = new StringBuilder("select e.seq, e.created_at from event e where true");
            if (f.authors() != null) {
                author = f.authors().iterator().next().toBytes();
                sql.append(" and e.pubkey = ?");
                params.add(author);
            }
        }
        if (f.kinds() != null) {
            if (f.kinds().size() == 1) {
                sql.append(" and ").append(a).append(".kind = ?");
                params.add(f.kinds().iterator().next());
            } else {
                sql.append(" and ").append(a).append(".kind = any(?)");
                params.add(SqlFilter.kinds(f.kinds()));
            }
        }
        if (f.since() != null) {
            sql.append(" and ").append(a).append(".created_at >= ?");
            params.add(f.since());
        }
        if (f.until() != null) {
            sql.append(" and ").append(a).append(".created_at <= ?");
            params.add(f.until());
        }
        if (!gated.isEmpty()) {
            sql.append(" and ").append(a).append(".kind <> all(?)");
            params.add(SqlFilter.kinds(gated));
        }
        // no tie-break: a tie across the limit sends the read to the ordinary statement, and a tie within it is sorted
        // by id here
        sql.append(" order by ").append(a).append(".created_at desc limit ?");
        params.add(limit + 1);
        Integer authorKind = author != null && f.kinds() != null ? f.kinds().iterator().next() : null;
        return new IndexRead(new SqlFilter.Sql(sql.toString(), params), limit, author, authorKind, tagName);
    }

    /**
     * The statement that fetches the events the cache lacks, {@code seqs}, whose {@code created_at} lie in
     * {@code [oldest, newest]}: {@code seq, expires_at} then {@link SqlFilter#columns}. A read of one author's events
     * reads them back through the same index range the scan walked ({@code event_pubkey_idx}, or
     * {@code event_pubkey_kind_idx} with a kind), which also finds their rows: about a hundred buffers for a hundred
     * events where {@code event_seq_idx} costs a descent of its own per event as well (about four hundred); PostgreSQL
     * keeps that index for the generic plan too. Every other read fetches by {@code seq} ({@link #fetch(long[])}): a
     * generic plan of the ranged statement without an author prefers {@code event_seq_idx} anyway.
     */
    SqlFilter.Sql fetch(long[] seqs, long oldest, long newest) {
        if (author == null) {
            return fetch(seqs);
        }
        List<Object> params = new ArrayList<>();
        StringBuilder sql = new StringBuilder("select e.seq, e.expires_at, ").append(SqlFilter.columns("e"))
                .append(" from event e where e.pubkey = ?");
        params.add(author);
        if (authorKind != null) {
            sql.append(" and e.kind = ?");
            params.add(authorKind);
        }
        sql.append(" and e.created_at >= ? and e.created_at <= ? and e.seq = any(?)");
        params.add(oldest);
        params.add(newest);
        params.add(seqArray(seqs));
        return new SqlFilter.Sql(sql.toString(), params);
    }

    private static SqlFilter.Arr seqArray(long[] seqs) {
        Long[] boxed = new Long[seqs.length];
        for (int i = 0; i < seqs.length; i++) {
            boxed[i] = seqs[i];
        }
        return new SqlFilter.Arr("int8", boxed);
    }

    /**
     * The statement that fetches the events the cache lacks: {@code seq, expires_at} then {@link SqlFilter#columns}.
     */
    static SqlFilter.Sql fetch(long[] seqs) {
        return new SqlFilter.Sql("select e.seq, e.expires_at, " + SqlFilter.columns("e")
                + " from event e where e.seq = any(?)", List.of(seqArray(seqs)));
    }

    /** How many of {@code n} scanned rows the read sends, or -1 when a tie straddles the limit. */
    int rowsToSend(long[] createdAt, int n) {
        if (n > limit) {
            return createdAt[limit] == createdAt[limit - 1] ? -1 : limit;
        }
        return n;
    }

    /**
     * The events to send, in NIP-01 order (newest first, a tie broken by the lowest id), from the first {@code m} rows
     * of the scan and their cache entries (none null); or null when the full statement must answer: an entry whose
     * event has expired at {@code now} (the statement would skip it and send the next one), or one whose JSON does not
     * begin with its id.
     */
    static EventCache.Entry[] answer(long[] createdAt, EventCache.Entry[] entries, int m, long now) {
        EventCache.Entry[] out = new EventCache.Entry[m];
        for (int i = 0; i < m; i++) {
            EventCache.Entry e = entries[i];
            if (e.expiresAt() <= now || !StoredJson.startsWithId(e.buf(), e.offset(), e.length())) {
                return null;
            }
            out[i] = e;
        }
        // the index orders a tie by seq; NIP-01 by the lowest id: sort each run of equal created_at by id
        int start = 0;
        while (start < m) {
            int end = start + 1;
            while (end < m && createdAt[end] == createdAt[start]) {
                end++;
            }
            if (end - start > 1) {
                java.util.Arrays.sort(out, start, end, StoredJson.BY_ID);
            }
            start = end;
        }
        return out;
    }
}

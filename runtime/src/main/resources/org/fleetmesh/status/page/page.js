// The meshnode status page (docs/OPERATING.md, "Reading the status page"). Plain script, no dependencies.
// Every value shown is set with textContent or as an attribute value: peers choose their names and URLs, and nothing
// they choose is ever parsed as HTML or followed as a link.
'use strict';
(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const STALE_MS = 5000;
  const PLOTS = [
    ['events_accepted', 'events accepted /s'],
    ['frames_in', 'link frames in /s'],
    ['frames_out', 'link frames out /s'],
    ['bytes_in', 'link bytes in /s'],
    ['bytes_out', 'link bytes out /s'],
    ['receipts', 'receipts /s (both chains)'],
  ];
  let lastAt = 0;
  let source = null;
  let retry = null;

  function $(id) { return document.getElementById(id); }

  /** An element with attributes and children; strings become text nodes, never markup. */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined) continue;
        if (k === 'class') e.className = v; else e.setAttribute(k, String(v));
      }
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function text(v) {
    if (v === null || v === undefined) return '–';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }

  function num(v, digits) {
    if (v === null || v === undefined || v === '') return '–';
    if (typeof v !== 'number') return text(v);
    if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(1) + 'M';
    if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + 'k';
    return Number.isInteger(v) ? String(v) : v.toFixed(digits === undefined ? 2 : digits);
  }

  function time(v) {
    if (v === null || v === undefined) return '–';
    const d = typeof v === 'number' ? new Date(v) : new Date(String(v));
    if (isNaN(d.getTime())) return text(v);
    return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  }

  /** The time of day (UTC) of an instant; the date only when it is not today. */
  function clock(v) {
    const full = time(v);
    const today = new Date().toISOString().slice(0, 10);
    return full.startsWith(today) ? full.slice(11) : full;
  }

  function ago(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + ' s ago';
    if (s < 3600) return Math.round(s / 60) + ' min ago';
    return Math.round(s / 3600) + ' h ago';
  }

  function bytes(n) {
    if (typeof n !== 'number') return text(n);
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (Math.abs(n) >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? String(n) : n.toFixed(n >= 100 ? 0 : 1)) + ' ' + units[i];
  }

  function pct(part, whole) {
    if (typeof part !== 'number' || typeof whole !== 'number' || whole <= 0) return '';
    return ' (' + Math.round(100 * part / whole) + '%)';
  }

  /** A grant as "256 KiB + 60 ev / 60 s"; its id, tier and expiry in the tooltip. */
  function grant(g) {
    if (!g || typeof g !== 'object') return el('span', null, text(g));
    return el('span', { title: 'grant ' + text(g.id) + ', tier ' + text(g.tier) + ', expires ' +
        time(typeof g.expiration === 'number' ? g.expiration * 1000 : g.expiration) + (g.agreed ? ', agreed' : ', not agreed') },
      bytes(g.bytes) + ' + ' + text(g.events) + ' ev / ' + text(g.window) + ' s' + (g.agreed === false ? ' (not agreed)' : ''));
  }

  /** This window's use against the grants: in against what this node granted, out against what it was granted. */
  function used(u, gin, gout) {
    if (!u || typeof u !== 'object') return el('span', null, text(u));
    const gi = gin || {}, go = gout || {};
    return el('span', null,
      el('div', null, 'in ' + bytes(u.in_bytes) + pct(u.in_bytes, gi.bytes) + ', ' + text(u.in_events) + ' ev' + pct(u.in_events, gi.events)),
      el('div', null, 'out ' + bytes(u.out_bytes) + pct(u.out_bytes, go.bytes) + ', ' + text(u.out_events) + ' ev' + pct(u.out_events, go.events)));
  }

  /** Strain per direction: bytes, events and the time spent verifying and querying for the peer. */
  function strain(st) {
    if (!st || typeof st !== 'object') return el('span', null, text(st));
    const side = (name, x) => x && typeof x === 'object'
      ? el('div', { title: name + ': ' + ms(x.verify_nanos) + ' verifying, ' + ms(x.query_nanos) + ' querying' },
        name + ' ' + bytes(x.bytes) + ', ' + text(x.events) + ' ev, ' + ms((x.verify_nanos || 0) + (x.query_nanos || 0)))
      : el('div', null, name + ' ' + text(x));
    return el('span', null, side('in', st.in), side('out', st.out));
  }

  function ms(nanos) {
    return typeof nanos === 'number' ? num(nanos / 1e6, 1) + ' ms' : text(nanos);
  }

  function clip(s, n) {
    const t = text(s);
    return el('span', { title: t.length > n ? t : null }, t.length > n ? t.slice(0, n - 1) + '…' : t);
  }

  function setText(id, v) { $(id).textContent = text(v); }

  function empty(colspan, what) {
    return el('tr', null, el('td', { colspan: colspan, class: 'empty' }, what));
  }

  /** Any JSON value as a small table or list, for the panels whose shape varies by adapter. */
  function generic(v) {
    if (Array.isArray(v)) {
      if (v.length === 0) return el('div', { class: 'empty' }, 'none');
      if (v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
        const keys = [];
        for (const row of v) for (const k of Object.keys(row)) if (!keys.includes(k)) keys.push(k);
        const head = el('tr', null, ...keys.map((k) => el('th', null, k)));
        const rows = v.map((row) => el('tr', null, ...keys.map((k) => el('td', { class: 'mono' }, text(row[k])))));
        return el('table', null, el('thead', null, head), el('tbody', null, ...rows));
      }
      return el('div', { class: 'mono' }, v.map(text).join(', '));
    }
    if (v && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length === 0) return el('div', { class: 'empty' }, 'none');
      const dl = el('dl', { class: 'kv' });
      for (const k of keys) {
        const x = v[k];
        dl.append(el('dt', null, k), el('dd', { class: 'mono' },
          x && typeof x === 'object' ? generic(x) : text(x)));
      }
      return dl;
    }
    return el('div', { class: 'mono' }, text(v));
  }

  function stateBadge(state) {
    return el('span', { class: 'state', 'data-state': state }, state);
  }

  function renderNode(status, streams) {
    setText('node-did', status.did);
    setText('node-prior', status.handed_over_from); // the DID before the last key rotation, if any
    setText('node-pubkey', status.pubkey);
    const keys = status.keys || {};
    setText('node-transport', keys.transport);
    setText('node-agreement', keys.agreement);
    setText('node-streams', streams ? streams.open + ' open of ' + streams.max : null);
  }

  function renderHealth(health) {
    const badge = $('health-status');
    badge.textContent = health.status;
    badge.setAttribute('data-status', health.status);
    const checks = (health.checks || []).slice().sort((x, y) => String(x.name).localeCompare(String(y.name)));
    const rows = checks.map((c) => el('tr', { 'data-check': c.name },
      el('td', null, c.name),
      el('td', null, el('span', { class: 'badge', 'data-status': c.status }, c.status)),
      el('td', { class: 'mono' }, Object.entries(c.data || {}).map(([k, v]) => k + '=' + text(v)).join('  '))));
    $('health').replaceChildren(...(rows.length ? rows : [empty(3, 'no readiness checks')]));
  }

  function view(v) {
    const e = el('span', { class: typeof v === 'number' && v < 1 ? 'low' : null }, num(v, 3));
    return e;
  }

  function renderPeers(peers) {
    const counts = {};
    for (const p of peers) counts[p.state] = (counts[p.state] || 0) + 1;
    $('peers-summary').textContent = peers.length + ' peers' +
      Object.entries(counts).map(([s, n]) => ', ' + n + ' ' + s).join('');
    const rows = [];
    for (const p of peers) rows.push(peerRow(p), ...(p.last_error ? [el('tr', { class: 'error-row' },
      el('td', { colspan: 12 }, 'last error: ', clip(p.last_error, 300)))] : []));
    $('peers').replaceChildren(...(rows.length ? rows : [empty(12, 'no peers: declare some (docs/OPERATING.md)')]));
  }

  function peerRow(p) {
    return el('tr', { 'data-did': p.did, 'data-state': p.state },
      el('td', { class: 'mono did nowrap' }, p.did, el('div', { class: 'muted url' }, text(p.url))),
      el('td', null, stateBadge(p.state), p.suspended ? el('div', { class: 'low' }, 'suspended: ' + text(p.suspended)) : null,
        p.quarantined_until ? el('div', { class: 'low' }, 'until ' + time(p.quarantined_until)) : null),
      el('td', { class: 'nowrap', title: time(p.since) }, clock(p.since)),
      el('td', null, num(p.rtt_ms, 1)),
      el('td', null, text(p.tier)),
      el('td', { class: 'nowrap' }, grant(p.grant_in)),
      el('td', { class: 'nowrap' }, grant(p.grant_out)),
      el('td', { class: 'nowrap' }, used(p.used, p.grant_in, p.grant_out)),
      el('td', { class: typeof p.violations === 'number' && p.violations > 0 ? 'low' : null }, text(p.violations)),
      el('td', { class: 'nowrap' }, strain(p.strain)),
      el('td', null, num(p.queue)),
      el('td', { class: 'nowrap' }, view(p.view_transit), ' / ', view(p.view_compute)));
  }

  function renderChains(peers, now) {
    const rows = [];
    for (const p of peers) {
      const c = p.custody;
      if (!c) continue;
      for (const side of ['sent', 'received']) {
        const chain = c[side];
        rows.push(el('tr', { 'data-did': p.did, 'data-chain': side },
          el('td', { class: 'mono' }, p.did),
          el('td', null, side === 'sent' ? 'sent (receipts from the peer)' : 'received (receipts this node signed)'),
          el('td', null, chain ? num(chain.size) : '–'),
          el('td', null, chain ? text(chain.seq) : '–'),
          el('td', { class: 'mono' }, chain ? text(chain.head) : 'empty'),
          el('td', null, chain && chain.head_moved_at ? ago(now - chain.head_moved_at) : '–'),
          el('td', { class: c.halted ? 'low' : null }, c.halted ? 'halted: ' + text(c.halted) : 'flowing')));
      }
    }
    $('chains').replaceChildren(...(rows.length ? rows : [empty(7, 'no custody chains yet')]));
  }

  function renderStanding(standing) {
    const counters = standing.findings || {};
    $('findings-counters').textContent = Object.entries(counters).map(([k, v]) => k + ' ' + v).join(', ');
    const subjects = standing.subjects || [];
    if (subjects.length === 0) {
      $('standing').replaceChildren(el('div', { class: 'empty' }, 'no findings about anyone: every view is 1.0'));
      return;
    }
    const blocks = subjects.map((s) => {
      const f = s.findings || { counted: 0, ignored: 0, details: [] };
      const details = (f.details || []).map((d) => el('tr', null,
        el('td', null, d.severity), el('td', null, d.scope), el('td', { class: 'mono' }, d.rule),
        el('td', { class: 'mono' }, d.observer),
        el('td', null, d.counted ? 'counted, weight ' + num(d.weight, 3) : 'ignored: ' + text(d.why)),
        el('td', { class: 'mono' }, d.id)));
      return el('div', { class: 'subject', 'data-subject': s.did },
        el('div', null, el('span', { class: 'mono' }, s.did), '  transit ', view(s.view_transit),
          '  compute ', view(s.view_compute), '  findings: ' + f.counted + ' counted, ' + f.ignored + ' ignored'),
        details.length ? el('details', null, el('summary', null, 'the findings behind these views'),
          el('table', null, el('thead', null, el('tr', null, ...['severity', 'scope', 'rule', 'observer', 'weight',
            'finding id'].map((h) => el('th', null, h)))), el('tbody', null, ...details))) : null);
    });
    const more = typeof standing.subjects_total === 'number' ? standing.subjects_total - subjects.length : 0;
    if (more > 0) {
      blocks.push(el('div', { class: 'empty', id: 'standing-more' }, more + ' more subjects with findings not listed here' +
        ' (those with counted findings and the lowest views come first): GET /mesh/standing has them all'));
    }
    $('standing').replaceChildren(...blocks);
  }

  function renderShards(shards, peers) {
    const parts = [el('h3', null, 'Shards this node holds'), generic(shards)];
    const rows = [];
    for (const p of peers) {
      const sync = p.shards && typeof p.shards === 'object' ? Object.entries(p.shards) : [];
      const s = p.sampling;
      if (sync.length === 0 && !s) continue;
      rows.push(el('tr', { 'data-did': p.did },
        el('td', { class: 'mono' }, p.did),
        el('td', { class: 'mono' }, sync.length ? sync.map(([id, d]) => id + ': ' + text(d)).join('\n') : '–'),
        el('td', null, s ? (s.last_round ? time(s.last_round * 1000) : 'never') : '–'),
        el('td', null, s ? s.rounds + ' rounds, ' + s.samples + ' asked, ' + s.missing + ' missing' : '–'),
        el('td', { class: s && s.evidence > 0 ? 'low' : null }, s ? text(s.evidence) : '–'),
        el('td', { class: s && s.problem ? 'low' : 'mono' }, s ? text(s.problem) : '–')));
    }
    parts.push(el('h3', null, 'Sync and sampling per peer'));
    parts.push(rows.length ? el('table', null, el('thead', null, el('tr', null, ...['peer DID', 'sync (per shard)',
      'last sample', 'samples', 'evidence', 'problem'].map((h) => el('th', null, h)))), el('tbody', null, ...rows))
      : el('div', { class: 'empty' }, 'no shard sync or sampling with any peer'));
    $('shards').replaceChildren(...parts);
  }

  function sparkline(values, ends, step, span) {
    const w = 300, h = 60;
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    svg.setAttribute('preserveAspectRatio', 'none');
    const base = document.createElementNS(SVG, 'line');
    base.setAttribute('x1', '0'); base.setAttribute('x2', String(w));
    base.setAttribute('y1', String(h - 1)); base.setAttribute('y2', String(h - 1));
    svg.append(base);
    if (values.length > 0) {
      const max = Math.max(...values, 1e-9);
      const last = ends[ends.length - 1];
      const pts = values.map((v, i) => {
        const x = w - ((last - ends[i]) / span) * w;
        const y = h - 2 - (v / max) * (h - 6);
        return x.toFixed(1) + ',' + y.toFixed(1);
      });
      if (pts.length === 1) pts.unshift((w - (step / span) * w).toFixed(1) + ',' + pts[0].split(',')[1]);
      const line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('points', pts.join(' '));
      svg.append(line);
    }
    return svg;
  }

  function renderRates(rates) {
    const series = rates.series || {};
    const ends = rates.at || [];
    const step = rates.step_ms || 10000;
    const span = step * (rates.samples || 360);
    const minutes = Math.round(span / 60000);
    $('rates-title').textContent = 'Rates, last ' + minutes + ' min';
    $('rates-step').textContent = 'one point per ' + Math.round(step / 1000) + ' s';
    const plots = PLOTS.map(([key, label]) => {
      const values = series[key] || [];
      const lastValue = values.length ? values[values.length - 1] : null;
      const max = values.length ? Math.max(...values) : null;
      return el('div', { class: 'plot', 'data-series': key },
        el('div', { class: 'title' }, el('span', null, label),
          el('span', { class: 'muted' }, 'now ' + num(lastValue) + ' · max ' + num(max))),
        sparkline(values, ends, step, span),
        el('div', { class: 'axis muted' }, el('span', null, '−' + minutes + ' min'), el('span', null, 'now')),
        values.length ? null : el('div', { class: 'empty' }, 'no points yet: the first comes two samples after start'));
    });
    $('rates').replaceChildren(...plots);
  }

  function render(snapshot) {
    lastAt = snapshot.at;
    const status = snapshot.status || {};
    const peers = status.peers || [];
    renderNode(status, snapshot.streams);
    renderHealth(snapshot.health || { status: '–', checks: [] });
    renderRates(snapshot.rates || {});
    renderPeers(peers);
    renderChains(peers, snapshot.at);
    renderShards(status.shards || [], peers);
    renderStanding(snapshot.standing || {});
    $('compute').replaceChildren(generic(status.compute || {}));
    document.body.setAttribute('data-snapshots', String(Number(document.body.getAttribute('data-snapshots') || 0) + 1));
    freshness();
  }

  function freshness() {
    const u = $('updated');
    if (!lastAt) return;
    const age = Date.now() - lastAt;
    u.textContent = 'updated ' + time(lastAt) + (age > STALE_MS ? ' (' + ago(age) + ': stale)' : '');
    u.className = age > STALE_MS ? 'stale' : 'muted';
  }

  function conn(state, why) {
    const c = $('conn');
    c.setAttribute('data-conn', state);
    c.textContent = why;
  }

  function connect() {
    retry = null;
    conn('connecting', 'connecting…');
    source = new EventSource('status/stream');
    source.onopen = () => conn('live', 'live');
    source.addEventListener('status', (e) => {
      conn('live', 'live');
      try {
        render(JSON.parse(e.data));
      } catch (err) {
        conn('retrying', 'a snapshot could not be shown: ' + err);
      }
    });
    source.addEventListener('failed', (e) => {
      let why = e.data;
      try { why = JSON.parse(e.data).error; } catch (ignored) { /* as sent */ }
      conn('retrying', 'the node could not build a snapshot: ' + why);
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // refused (503 when all stream slots are taken, 401/403 without access): try again later
        conn('refused', 'stream refused or closed; retrying in 5 s');
        source.close();
        if (!retry) retry = setTimeout(connect, 5000);
      } else {
        conn('retrying', 'connection lost; reconnecting…');
      }
    };
  }

  // for the browser test (StatusPageIT): the formatters, and render() to feed a hostile snapshot
  window.meshStatusPage = Object.freeze({ render, bytes, num, time, ago, grant, used, strain });
  setInterval(freshness, 1000);
  connect();
})();

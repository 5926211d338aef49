// StatusPageIT's browser: Debian's chromium driven by playwright-core against a running meshnode's GET /mesh/.
// argv: <page url> <screenshot dir> <peer DID> <peer DID to be stopped>
// Talks to the test over stdio: prints "UP <snapshots>" once both peers show up, waits for "STOPPED" on stdin,
// then prints "CHANGED <state>" once the stopped peer's row shows another state without a reload. Any failure: a
// message on stderr and exit 1.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const [url, shots, stays, stops] = process.argv.slice(2);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'meshnode-status-chromium-'));
const problems = [];
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync'],
    viewport: { width: 1600, height: 1000 },
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push('console error: ' + m.text());
  });
  page.on('response', (r) => { if (r.status() >= 400) problems.push('HTTP ' + r.status() + ' for ' + r.url()); });
  page.on('requestfailed', (r) => problems.push('request failed: ' + r.url() + ' ' + (r.failure() || {}).errorText));
  // every request the page makes goes to the node itself: nothing from a CDN or elsewhere
  const origin = new URL(url).origin;
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) problems.push('off-node request: ' + r.url()); });

  const response = await page.goto(url, { waitUntil: 'load' });
  if (!response || response.status() !== 200) throw new Error('GET ' + url + ' answered ' + (response && response.status()));
  const row = (did) => `#peers tr[data-did="${did}"]`;
  await page.waitForSelector(`${row(stays)}[data-state="up"]`, { timeout: 60000 });
  await page.waitForSelector(`${row(stops)}[data-state="up"]`, { timeout: 60000 });
  const shownDid = await page.textContent('#node-did');
  if (!shownDid || !shownDid.startsWith('did:peer:')) throw new Error('the node DID is not shown: ' + shownDid);
  const badge = await page.textContent(`${row(stops)} .state`);
  if (badge !== 'up') throw new Error('the peer\'s state badge reads ' + badge);
  // a marker a reload would wipe: the change below must come over the stream, into this same document
  await page.evaluate(() => { window.__sameDocument = 'status-page-it'; });
  const before = Number(await page.getAttribute('body', 'data-snapshots'));
  await page.screenshot({ path: path.join(shots, 'status-page-up.png'), fullPage: true });
  console.log('UP ' + before);

  if ((await nextLine()) !== 'STOPPED') throw new Error('expected STOPPED');
  const handle = await page.waitForFunction((sel) => {
    const tr = document.querySelector(sel);
    return tr && tr.getAttribute('data-state') !== 'up' ? tr.getAttribute('data-state') : false;
  }, row(stops), { timeout: 90000, polling: 200 });
  const state = await handle.jsonValue();
  const same = await page.evaluate(() => window.__sameDocument);
  if (same !== 'status-page-it') throw new Error('the page reloaded instead of updating in place');
  const after = Number(await page.getAttribute('body', 'data-snapshots'));
  if (!(after > before)) throw new Error('no snapshot arrived after the first: ' + before + ' -> ' + after);
  const stillUp = await page.getAttribute(row(stays), 'data-state');
  if (stillUp !== 'up') throw new Error('the peer still running shows ' + stillUp);
  const shownState = await page.textContent(`${row(stops)} .state`);
  if (shownState !== state) throw new Error('the badge reads ' + shownState + ', the row says ' + state);
  await page.screenshot({ path: path.join(shots, 'status-page.png'), fullPage: true });

  // the formatters, in the browser that runs them
  const formats = await page.evaluate(() => {
    const f = window.meshStatusPage;
    return [f.bytes(500), f.bytes(262144), f.bytes(5 * 1024 * 1024), f.num(12345), f.num(0.5), f.num(null),
      f.ago(90000), f.time(0), f.grant({ bytes: 262144, events: 60, window: 60, agreed: true }).textContent,
      f.used({ in_bytes: 131072, in_events: 6, out_bytes: 0, out_events: 0 }, { bytes: 262144, events: 60 },
        { bytes: 262144, events: 60 }).textContent];
  });
  const expected = ['500 B', '256 KiB', '5.0 MiB', '12.3k', '0.50', '–', '2 min ago', '1970-01-01 00:00:00Z',
    '256 KiB + 60 ev / 60 s', 'in 128 KiB (50%), 6 ev (10%)out 0 B (0%), 0 ev (0%)'];
  if (JSON.stringify(formats) !== JSON.stringify(expected)) {
    throw new Error('formatting: ' + JSON.stringify(formats) + ' != ' + JSON.stringify(expected));
  }

  // strings a peer chooses are shown as text: a hostile snapshot makes no element, link or script run
  const hostile = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
  const shown = await page.evaluate((h) => {
    window.meshStatusPage.render({
      at: Date.now(),
      status: { did: h, pubkey: h, keys: { transport: h, agreement: h }, shards: [{ id: h, filter: h }],
        compute: { [h]: h, rails: [h] },
        peers: [{ did: h, url: 'javascript:window.__pwned=1', state: h, since: h, rtt_ms: h, tier: h, grant_in: h,
          grant_out: { id: h, bytes: h, events: h, window: h }, used: h, violations: h, strain: { in: h, out: h },
          queue: h, view_transit: h, view_compute: h, last_error: h, suspended: h, quarantined_until: h,
          custody: { sent: { size: h, seq: h, head: h, head_moved_at: 1 }, received: null, halted: h },
          shards: { [h]: h }, sampling: { rounds: h, samples: h, missing: h, evidence: h, last_round: h, problem: h } }] },
      standing: { subjects: [{ did: h, view_transit: h, view_compute: h, findings: { counted: h, ignored: h,
        details: [{ id: h, observer: h, severity: h, scope: h, rule: h, counted: false, why: h }] } }],
        findings: { [h]: h } },
      health: { status: h, checks: [{ name: h, status: h, data: { [h]: h } }] },
      rates: { step_ms: 1000, at: [1, 2], series: { events_accepted: [1, 2] } },
      streams: { open: h, max: h },
    });
    return {
      markup: document.querySelectorAll('main img, main b, main a, main script, main iframe').length,
      peers: document.getElementById('peers').textContent.includes(h),
      did: document.getElementById('node-did').textContent === h,
    };
  }, hostile);
  await page.waitForTimeout(500);
  const pwned = await page.evaluate(() => window.__pwned === 1);
  if (shown.markup !== 0 || !shown.peers || !shown.did || pwned) {
    throw new Error('a hostile string was not shown as text: ' + JSON.stringify(shown) + ', pwned ' + pwned);
  }
  if (problems.length) throw new Error(problems.join('\n'));
  console.log('CHANGED ' + state);
} catch (e) {
  console.error(e && e.stack ? e.stack : String(e));
  if (problems.length) console.error(problems.join('\n'));
  process.exitCode = 1;
} finally {
  if (context) await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
  lines.close();
}

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
    viewport: { width: 1400, height: 1000 },
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

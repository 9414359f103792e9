// The rack page (issue 20, D-035): reads the sled's API with the operator's read token and
// follows its event stream. It starts nothing. Every text from the rack is set as text, never
// parsed as markup.
'use strict';

const TOKEN_KEY = 'sushReadToken';
const state = {
  sleds: new Map(),   // baseboard -> {cubby, software, api, reachable, version, boundary}
  jobs: new Map(),    // job id -> {statuses: {baseboard: status}, session}
  order: [],          // job ids, newest first
  session: null,
  errors: [],
};

function readToken() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    history.replaceState(null, '', location.pathname);  // the token leaves the address bar
  }
  return sessionStorage.getItem(TOKEN_KEY);
}
const token = readToken();
let drawn = false;  // set once the first state has arrived and been drawn

class ApiError extends Error {
  constructor(status, body) { super(status + ' ' + body); this.status = status; }
}

// A request the sled has not answered in this long is given up (an error, asked again by its
// caller): GET /rack waits at most 2.5 s for each other sled, so only a stalled connection or a
// stalled sled takes longer, and a page must not wait on it for ever.
const REQUEST_WAIT_MS = 15000;
// The first draw, after a failure, is asked again this much later per failed attempt, and never
// more than FIRST_DRAW_RETRY_MAX_MS apart.
const FIRST_DRAW_RETRY_STEP_MS = 1000;
const FIRST_DRAW_RETRY_MAX_MS = 5000;

async function get(path) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), REQUEST_WAIT_MS);
  try {
    const r = await fetch(path, { headers: { Authorization: 'SushRead ' + token }, cache: 'no-store',
      signal: abort.signal });
    if (!r.ok) {
      throw new ApiError(r.status, await r.text());
    }
    return await r.json();
  } catch (err) {
    if (err.name === 'AbortError') throw new Error(path + ': no answer within ' + REQUEST_WAIT_MS + ' ms');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function short(phrase) {
  return phrase ? String(phrase).split('-').slice(0, 3).join('-') + '…' : '-';
}

function needAuth(why) {
  document.getElementById('auth').hidden = false;
  document.getElementById('auth-why').textContent = why || '';
}

// ---- Sleds ------------------------------------------------------------------------------

// Every sled's state in one request: the serving sled asks the others at once (GET /rack).
async function refreshSleds() {
  applyRack(await get('/rack'));
}

function applyRack(r) {
  const seen = new Set();
  for (const s of r.sleds) {
    seen.add(s.baseboard);
    const e = state.sleds.get(s.baseboard) || {};
    Object.assign(e, { cubby: s.cubby, software: s.software, api: s.api, reachable: s.reachable,
      error: s.error || null, version: s.version || null, boundary: s.boundary || null });
    state.sleds.set(s.baseboard, e);
  }
  for (const b of [...state.sleds.keys()]) if (!seen.has(b)) state.sleds.delete(b);
  renderRack();
  renderChain();
  if (jobsDrawn && sledColumns().join(' ') !== columns.join(' ')) renderJobs();  // a sled came or went
}

function sledState(e) {
  if (!e) return 'empty';
  if (!e.reachable) return 'down';
  if (e.error) return 'refused';  // it answered, with an error (our token not yet known there, say)
  const b = e.boundary || {};
  // An untrusted store (its load discarded), or a signed rack's sled never provisioned.
  if (b.trusted === false || b.load === 'discard' || (b.ordering === 'signed' && !b.record)) return 'untrusted';
  if (b.floor !== null && b.floor !== undefined && b.ordering !== 'signed') return 'floor';
  return 'up';
}

const WORDS = { up: 'UP', floor: 'FLOOR', untrusted: 'UNTRUSTED', refused: 'REFUSED', down: 'DOWN', empty: 'EMPTY' };

function renderRack() {
  const rack = document.getElementById('rack');
  const byCubby = new Map();
  for (const [b, e] of state.sleds) byCubby.set(e.cubby, [b, e]);
  rack.replaceChildren();
  for (let c = 0; c < 32; c++) {
    const found = byCubby.get(c);
    const st = found ? sledState(found[1]) : 'empty';
    const box = el('div', 'cubby state-' + st);
    box.dataset.cubby = c;
    if (found) box.dataset.baseboard = found[0];
    box.append(el('span', 'n', c), el('span', 'word', WORDS[st]));
    if (found) {
      const [b, e] = found;
      box.append(el('span', 'detail', b));
      const v = e.version || {};
      const rec = e.boundary && e.boundary.record;
      const committed = rec && rec.committed;
      const bits = [];
      if (v.network) bits.push('universe ' + String(v.network).slice(0, 14));
      bits.push(e.boundary ? (e.boundary.trusted ? 'trusted' : 'untrusted') : 'store ?');
      if (e.boundary && e.boundary.floor !== null && e.boundary.floor !== undefined) {
        bits.push('floor ' + e.boundary.floor);
      }
      box.append(el('span', 'detail', bits.join(' · ')));
      box.append(el('span', 'detail', committed ? 'committed ' + short(committed.job) + ' ' + committed.outcome
          + (committed.outcome !== 'committed' ? ' ' + committed.code : '') : 'nothing committed'));
      box.append(el('span', 'detail', 'software ' + (e.software || '?')));
      if (e.error) box.append(el('span', 'detail reason', e.error));
    }
    rack.append(box);
  }
}

// ---- Session and chain ----------------------------------------------------------------------

async function refreshSession() {
  try {
    state.session = await get('/sessions');
  } catch (err) {
    if (err.status === 404) state.session = null; else throw err;
  }
  const s = document.getElementById('session');
  s.replaceChildren();
  if (!state.session) {
    s.textContent = 'none active';
  } else {
    s.append(el('code', null, state.session.session_id), el('span', null, ' started by '),
        el('code', null, state.session.starter || '?'), el('span', null, ' · next position '),
        el('code', null, short(state.session.next_job)));
  }
  renderChain();
}

function renderChain() {
  if (!drawn) return;  // the first draw is once everything has arrived
  const chain = document.getElementById('chain');
  chain.replaceChildren();
  if (!state.session) return;
  const heads = new Map();
  for (const [b, e] of state.sleds) {
    const c = e.boundary && e.boundary.record && e.boundary.record.committed;
    if (c && c.job) {
      if (!heads.has(c.job)) heads.set(c.job, []);
      heads.get(c.job).push(e.cubby);
    }
  }
  const ids = state.order.filter((id) => state.jobs.get(id).session === state.session.session_id).reverse();
  for (const id of ids) {
    const statuses = Object.values(state.jobs.get(id).statuses);
    const burnt = statuses.length > 0 && statuses.every((s) => s.status === 'skipped' || s.status === 'cancelled');
    const pos = el('span', 'pos' + (burnt ? ' burnt' : ''), short(id));
    pos.title = id + (burnt ? ' (passed without running)' : '');
    if (heads.has(id)) pos.append(el('span', 'heads', ' ◆' + heads.get(id).sort((a, b) => a - b).join(',')));
    chain.append(pos);
  }
  chain.append(el('span', 'pos', 'next: ' + short(state.session.next_job)));
}

// ---- Jobs -----------------------------------------------------------------------------------

function applyJobs(page) {
  state.order = page.jobs.map((j) => j.job_id);
  for (const j of page.jobs) {
    state.jobs.set(j.job_id, { statuses: j.statuses || {}, session: j.session_id, waves: j.waves });
  }
  document.getElementById('jobs-count').textContent = '(' + page.total + ' known here)';
  renderJobs();
}

function sledColumns() {
  return [...state.sleds.entries()].sort((a, b) => a[1].cubby - b[1].cubby).map(([b]) => b);
}

// The jobs are a grid, not a table: a row holds only the cells of sleds that reported (placed in
// their sled's column), and rows come in blocks the browser skips while they are off screen
// (content-visibility), so 1,000 jobs on 32 sleds draw as fast as the screen's worth of them.
// Each drawn row and its cells by sled are kept, so that a live status finds its cell without
// a search of the document (a new event stream replays thousands of events).
const BLOCK = 40;
const rows = new Map();  // job id -> {row, cells: Map(baseboard -> cell)}
let columns = [];        // baseboards in column order (by cubby)
let jobsDrawn = false;

function renderJobs() {
  columns = sledColumns();
  const grid = document.getElementById('jobs');
  grid.style.setProperty('--sleds', Math.max(columns.length, 1));
  const head = document.getElementById('jobs-head');
  head.replaceChildren(el('div', 'h', 'job'));
  columns.forEach((b, i) => {
    const h = el('div', 'h', state.sleds.get(b).cubby + ' ' + b);
    h.setAttribute('role', 'columnheader');
    h.style.gridColumn = String(i + 2);
    head.append(h);
  });
  rows.clear();
  jobsDrawn = true;
  const all = document.createDocumentFragment();
  for (let i = 0; i < state.order.length; i += BLOCK) {
    const block = el('div', 'block');
    block.setAttribute('role', 'rowgroup');
    for (const id of state.order.slice(i, i + BLOCK)) block.append(jobRow(id));
    all.append(block);
  }
  document.getElementById('jobs-body').replaceChildren(all);
}

function jobRow(id) {
  const row = el('div', 'job');
  row.setAttribute('role', 'row');
  row.dataset.job = id;
  const name = el('div', 'name', id);
  name.setAttribute('role', 'rowheader');
  const w = state.jobs.get(id).waves;
  if (w) name.append(el('small', 'waves', waveText(w)));
  row.append(name);
  const cells = new Map();
  const statuses = state.jobs.get(id).statuses;
  columns.forEach((b, i) => {
    if (statuses[b]) {
      const c = cell(id, b, statuses[b]);
      c.style.gridColumn = String(i + 2);
      cells.set(b, c);
      row.append(c);
    }
  });
  rows.set(id, { row, cells });
  return row;
}

// A job in waves (issue 40): its size and budget, and what it waits for or how it ended.
function waveText(w) {
  const head = ' waves of ' + w.size + ', budget ' + w.max_failures + ', ' + w.failures + ' failed';
  if (w.spent) return head + ': budget spent';
  if (w.wave < 0) return head + ': every wave done';
  return head + ': wave ' + w.wave + ' awaits cubbies ' + w.awaiting.join(', ');
}

function sameStatus(a, b) {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

function updateCell(id, b, s) {
  if (!state.jobs.has(id)) {
    state.jobs.set(id, { statuses: {}, session: state.session ? state.session.session_id : null });
    state.order.unshift(id);
    const body = document.getElementById('jobs-body');
    let first = body.firstElementChild;
    if (!first) {
      first = el('div', 'block');
      first.setAttribute('role', 'rowgroup');
      body.append(first);
    }
    first.prepend(jobRow(id));
    document.getElementById('jobs-count').textContent = '(' + state.order.length + ' known here)';
    sessionSoon();  // a new job: the session and its chain moved
  }
  const statuses = state.jobs.get(id).statuses;
  if (sameStatus(statuses[b], s)) return;  // replayed: already drawn
  statuses[b] = s;
  const row = rows.get(id);
  const at = columns.indexOf(b);
  if (!row || at < 0) return;  // a sled without a column yet: its column comes with the next draw
  const fresh = cell(id, b, s);
  fresh.style.gridColumn = String(at + 2);
  const old = row.cells.get(b);
  if (old) old.replaceWith(fresh); else row.row.append(fresh);
  row.cells.set(b, fresh);
}

// A job first seen in the event stream: its session (not in the event) and the chain, asked once
// for a burst of new jobs.
let sessionAsked = null;
function sessionSoon() {
  if (sessionAsked) return;
  sessionAsked = Promise.all([refreshSession(), get('/jobs?limit=100')]).then(([, page]) => {
    for (const j of page.jobs) {
      const known = state.jobs.get(j.job_id);
      if (known) known.session = j.session_id;
    }
    renderChain();
  }).catch(() => {}).finally(() => { sessionAsked = null; });
}

// One sled's status of a job: what it is, its exit code, the sled's clock and the output.
function cell(id, b, s) {
  const td = el('div');
  td.setAttribute('role', 'cell');
  td.dataset.sled = b;
  td.className = 'cell status-' + s.status + (s.status === 'stopped' ? (s.exit_code === 0 ? ' ok' : ' nonzero') : '');
  let text = s.status;
  if (s.exit_code !== undefined) text += ' exit ' + s.exit_code;
  if (s.error) text += ' ' + s.error;
  td.append(el('span', 'what', text));
  if (s.detail) td.append(el('small', null, s.detail));
  if (s.reason) td.append(el('small', null, s.reason));
  if (s.sled_started_at) {
    td.append(el('small', null, 'sled clock ' + s.sled_started_at.replace('T', ' ').replace('Z', '')
        + (s.duration_ms !== undefined ? ' · ' + (s.duration_ms / 1000).toFixed(3) + ' s' : '')));
  }
  if (s.stdout_sha3) {
    const a = el('a', 'output', 'stdout');
    a.href = '#';
    a.addEventListener('click', (ev) => { ev.preventDefault(); openOutput(id, b, s, a); });
    td.append(a);
  }
  return td;
}

// An output, fetched through this sled by a worker that hashes it as it arrives (any size), and
// opened only when its SHA3-256 is the one its status says.
function openOutput(id, b, s, link) {
  link.textContent = 'fetching…';
  const worker = new Worker('/web/sha3-worker.js');
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.progress !== undefined) {
      link.textContent = 'stdout (checking: ' + (m.progress / 1048576).toFixed(0) + ' MiB so far)';
      return;
    }
    worker.terminate();
    if (m.error) { link.textContent = 'stdout (' + m.error + ')'; return; }
    const ok = m.hex === s.stdout_sha3;
    link.textContent = ok ? 'stdout (verified)' : 'stdout (HASH MISMATCH)';
    link.title = m.bytes + ' bytes, SHA3-256 ' + m.hex;
    if (ok) window.open(URL.createObjectURL(m.blob), '_blank');
  };
  worker.onerror = (e) => { worker.terminate(); link.textContent = 'stdout (not checked: ' + e.message + ')'; };
  const url = '/jobs/' + encodeURIComponent(id) + '/output/stdout?sled=' + encodeURIComponent(b);
  worker.postMessage({ url, token });
}

// ---- Errors ---------------------------------------------------------------------------------

function addError(text) {
  const list = document.getElementById('errors');
  const quiet = list.querySelector('.quiet');
  if (quiet) quiet.remove();
  list.prepend(el('li', null, new Date().toISOString().slice(11, 19) + ' ' + text));
  while (list.children.length > 200) list.lastChild.remove();
}

// ---- Live: the event stream (Server-Sent Events read with fetch, so the token goes along) -----

async function follow() {
  let last = null;
  for (;;) {
    try {
      const headers = { Authorization: 'SushRead ' + token };
      if (last) headers['Last-Event-ID'] = last;
      const r = await fetch('/events', { headers, cache: 'no-store' });
      if (!r.ok) throw new ApiError(r.status, await r.text());
      setLive(true);
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      let kind = 'message';
      let data = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, '');
          buf = buf.slice(nl + 1);
          if (line.startsWith('id: ')) last = line.slice(4);
          else if (line.startsWith('event: ')) kind = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
          else if (line === '' && data) { onEvent(kind, JSON.parse(data)); kind = 'message'; data = ''; }
        }
      }
    } catch (err) {
      if (err.status === 401 || err.status === 403) { needAuth(err.message); setLive(false); return; }
    }
    setLive(false);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

function onEvent(kind, d) {
  if (d.job_id && d.baseboard && d.status) {
    const { job_id, baseboard, sled, ...status } = d;
    updateCell(job_id, baseboard, status);
    if (status.status === 'error' || status.error === 'invalid-job') {
      addError('job ' + short(job_id) + ' on ' + baseboard + ': ' + (status.error || '') + ' ' + (status.detail || ''));
    }
    if (status.status === 'skipped') addError('job ' + short(job_id) + ' skipped on ' + baseboard + ': ' + status.reason);
  } else if (d.error) {
    addError((d.sled || '') + ': ' + d.error + ': ' + (d.detail || ''));
  } else if (d.cause) {
    addError((d.sled || '') + ': floor raised (' + d.cause + ')');
    refreshSleds().catch(() => {});
  }
}

function setLive(on) {
  const l = document.getElementById('live');
  l.className = 'live ' + (on ? 'on' : 'off');
  l.textContent = on ? 'live' : 'not live';
}

// ---- Start ------------------------------------------------------------------------------------

// The first draw: this sled, every sled's state, the session and the jobs at once (four requests:
// a browser opens six connections to a host); the rows are drawn once the sleds are known. A
// request that fails (a sled busy or restarting, a connection cut) is listed with its reason and
// the whole is asked again, a second later and then less often: a page left open through an
// incident draws itself once the sled answers, never stays blank. False when the token is refused.
async function firstDraw() {
  for (let attempt = 0; ; attempt++) {
    try {
      const [me, rack, , page] = await Promise.all([get('/version'), get('/rack'), refreshSession(),
        get('/jobs?limit=1000')]);
      document.getElementById('served').textContent = 'served by ' + me.baseboard + ' (cubby ' + me.cubby + '), '
          + me.ordering + ' ordering';
      applyRack(rack);
      applyJobs(page);
      drawn = true;
      renderChain();
      return true;
    } catch (err) {
      if (err.status === 401 || err.status === 403) { needAuth(err.message); return false; }
      addError('the page could not read the rack (asking again): ' + err.message);
      await new Promise((res) => setTimeout(res, Math.min(FIRST_DRAW_RETRY_STEP_MS * (attempt + 1), FIRST_DRAW_RETRY_MAX_MS)));
    }
  }
}

async function start() {
  if (!token) { needAuth('no token in this tab yet'); return; }
  if (!await firstDraw()) return;
  document.body.dataset.builtMs = performance.now().toFixed(1);  // the data in, the page's elements built
  // Milliseconds from navigation to everything drawn: taken in a task after the next frame,
  // so the layout and paint of what was built count (./bench.sh page and RackPageTest read it).
  requestAnimationFrame(() => setTimeout(() => {
    document.body.dataset.loadMs = performance.now().toFixed(1);
    document.body.dataset.ready = 'true';
  }, 0));
  follow();
  // Each refresh starts once the last has ended: a slow sled never piles requests up.
  const every = (ms, f) => setTimeout(() => f().catch(() => {}).finally(() => every(ms, f)), ms);
  every(2000, refreshSleds);
  every(5000, refreshSession);
}

start();

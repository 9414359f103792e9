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

class ApiError extends Error {
  constructor(status, body) { super(status + ' ' + body); this.status = status; }
}

async function get(path) {
  const r = await fetch(path, { headers: { Authorization: 'SushRead ' + token }, cache: 'no-store' });
  if (!r.ok) {
    throw new ApiError(r.status, await r.text());
  }
  return r.json();
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

async function refreshSleds() {
  const v = await get('/versions');
  const seen = new Set();
  for (const s of v.sleds) {
    seen.add(s.baseboard);
    const e = state.sleds.get(s.baseboard) || {};
    Object.assign(e, { cubby: s.cubby, software: s.software, api: s.api });
    state.sleds.set(s.baseboard, e);
  }
  await Promise.all([...state.sleds.keys()].map(async (b) => {
    const e = state.sleds.get(b);
    const q = '?sled=' + encodeURIComponent(b);
    try {
      const [version, boundary] = await Promise.all([get('/version' + q), get('/boundary' + q)]);
      Object.assign(e, { version, boundary, reachable: true });
    } catch (err) {
      e.reachable = false;
    }
  }));
  renderRack();
  renderChain();
}

function sledState(e) {
  if (!e) return 'empty';
  if (!e.reachable) return 'down';
  const b = e.boundary || {};
  // An untrusted store (its load discarded), or a signed rack's sled never provisioned.
  if (b.trusted === false || b.load === 'discard' || (b.ordering === 'signed' && !b.record)) return 'untrusted';
  if (b.floor !== null && b.floor !== undefined && b.ordering !== 'signed') return 'floor';
  return 'up';
}

const WORDS = { up: 'UP', floor: 'FLOOR', untrusted: 'UNTRUSTED', down: 'DOWN', empty: 'EMPTY' };

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

async function refreshJobs() {
  applyJobs(await get('/jobs?limit=1000'));
}

function applyJobs(page) {
  state.order = page.jobs.map((j) => j.job_id);
  for (const j of page.jobs) {
    state.jobs.set(j.job_id, { statuses: j.statuses || {}, session: j.session_id });
  }
  document.getElementById('jobs-count').textContent = '(' + page.total + ' known here)';
  renderJobs();
}

function sledColumns() {
  return [...state.sleds.entries()].sort((a, b) => a[1].cubby - b[1].cubby).map(([b]) => b);
}

function renderJobs() {
  const cols = sledColumns();
  const head = document.getElementById('jobs-head');
  head.replaceChildren(el('th', null, 'job'));
  for (const b of cols) head.append(el('th', null, state.sleds.get(b).cubby + ' ' + b));
  const body = document.getElementById('jobs-body');
  body.replaceChildren();
  for (const id of state.order) body.append(jobRow(id, cols));
}

function jobRow(id, cols) {
  const tr = el('tr');
  tr.dataset.job = id;
  const name = el('td', null, id);
  tr.append(name);
  const statuses = state.jobs.get(id).statuses;
  for (const b of cols) tr.append(cell(id, b, statuses[b]));
  return tr;
}

function cell(id, b, s) {
  const td = el('td');
  td.dataset.sled = b;
  if (!s) return td;
  td.className = 'status-' + s.status + (s.status === 'stopped' ? (s.exit_code === 0 ? ' ok' : ' nonzero') : '');
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

function updateCell(id, b, s) {
  if (!state.jobs.has(id)) {
    state.jobs.set(id, { statuses: {}, session: state.session ? state.session.session_id : null });
    state.order.unshift(id);
    const cols = sledColumns();
    document.getElementById('jobs-body').prepend(jobRow(id, cols));
    document.getElementById('jobs-count').textContent = '(' + state.order.length + ' known here)';
    refreshSession().catch(() => {});  // a new job: the session and its chain moved
  }
  state.jobs.get(id).statuses[b] = s;
  const row = document.querySelector('tr[data-job="' + CSS.escape(id) + '"]');
  if (!row) return;
  const old = row.querySelector('td[data-sled="' + CSS.escape(b) + '"]');
  if (old) old.replaceWith(cell(id, b, s));
}

// An output, fetched through this sled and checked against the SHA3-256 of its status.
async function openOutput(id, b, s, link) {
  link.textContent = 'fetching…';
  const r = await fetch('/jobs/' + encodeURIComponent(id) + '/output/stdout?sled=' + encodeURIComponent(b),
      { headers: { Authorization: 'SushRead ' + token } });
  if (!r.ok) { link.textContent = 'stdout (' + r.status + ')'; return; }
  const bytes = new Uint8Array(await r.arrayBuffer());
  const ok = bytes.length <= 8 * 1024 * 1024 ? sha3_256hex(bytes) === s.stdout_sha3 : null;
  link.textContent = ok === null ? 'stdout (not checked here: large)' : ok ? 'stdout (verified)' : 'stdout (HASH MISMATCH)';
  if (ok !== false) {
    window.open(URL.createObjectURL(new Blob([bytes], { type: 'text/plain' })), '_blank');
  }
}

// SHA3-256 (FIPS 202): Keccak-f[1600] on 64-bit lanes as BigInt, rate 136 bytes, padding 0x06.
function sha3_256hex(msg) {
  const M = (1n << 64n) - 1n;
  const RC = [0x1n, 0x8082n, 0x800000000000808an, 0x8000000080008000n, 0x808bn, 0x80000001n, 0x8000000080008081n,
    0x8000000000008009n, 0x8an, 0x88n, 0x80008009n, 0x8000000an, 0x8000808bn, 0x800000000000008bn,
    0x8000000000008089n, 0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n, 0x800an,
    0x800000008000000an, 0x8000000080008081n, 0x8000000000008080n, 0x80000001n, 0x8000000080008008n];
  const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
  const rotl = (x, n) => n === 0 ? x : ((x << BigInt(n)) | (x >> BigInt(64 - n))) & M;
  const A = new Array(25).fill(0n);
  const rate = 136;
  const padded = new Uint8Array(Math.floor(msg.length / rate) * rate + rate);
  padded.set(msg);
  padded[msg.length] ^= 0x06;
  padded[padded.length - 1] ^= 0x80;
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let k = 7; k >= 0; k--) lane = (lane << 8n) | BigInt(padded[off + i * 8 + k]);
      A[i] ^= lane;
    }
    for (let round = 0; round < 24; round++) {
      const C = [0, 1, 2, 3, 4].map((x) => A[x] ^ A[x + 5] ^ A[x + 10] ^ A[x + 15] ^ A[x + 20]);
      for (let x = 0; x < 5; x++) {
        const D = C[(x + 4) % 5] ^ rotl(C[(x + 1) % 5], 1);
        for (let y = 0; y < 25; y += 5) A[x + y] ^= D;
      }
      const B = new Array(25);
      for (let x = 0; x < 5; x++) {
        for (let y = 0; y < 5; y++) B[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(A[x + 5 * y], ROT[x + 5 * y]);
      }
      for (let x = 0; x < 5; x++) {
        for (let y = 0; y < 25; y += 5) A[x + y] = B[x + y] ^ ((~B[(x + 1) % 5 + y] & M) & B[(x + 2) % 5 + y]);
      }
      A[0] ^= RC[round];
    }
  }
  let hex = '';
  for (let i = 0; i < 4; i++) {
    let lane = A[i];
    for (let k = 0; k < 8; k++) { hex += Number(lane & 0xffn).toString(16).padStart(2, '0'); lane >>= 8n; }
  }
  return hex;
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

async function start() {
  if (!token) { needAuth('no token in this tab yet'); return; }
  try {
    const me = await get('/version');
    document.getElementById('served').textContent = 'served by ' + me.baseboard + ' (cubby ' + me.cubby + '), '
        + me.ordering + ' ordering';
    // Every sled's state, the session and the jobs at once; the rows are drawn once the sleds are known.
    const [, , page] = await Promise.all([refreshSleds(), refreshSession(), get('/jobs?limit=1000')]);
    applyJobs(page);
    renderChain();
    // Milliseconds from navigation to everything drawn (./bench.sh page reads it).
    document.body.dataset.loadMs = performance.now().toFixed(1);
    document.body.dataset.ready = 'true';
  } catch (err) {
    if (err.status === 401 || err.status === 403) { needAuth(err.message); return; }
    addError('the page could not read the rack: ' + err.message);
  }
  follow();
  setInterval(() => refreshSleds().catch(() => {}), 2000);
  setInterval(() => refreshSession().catch(() => {}), 5000);
}

start();

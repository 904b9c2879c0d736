// The robot's web page: live body and conversation over server-sent
// events, talking and technician controls over small JSON requests.
'use strict';

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
const AXES = ['bottom', 'middle', 'top'];
const MAX_ITEMS = 300;
let session = { may_talk: false, technician: false };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = {};
  try { data = await res.json(); } catch (e) { /* no body */ }
  if (!res.ok) throw new Error(data.error || (res.status + ' ' + res.statusText));
  return data;
}

function note(id, text, bad) {
  const n = $(id);
  n.textContent = text || '';
  n.classList.toggle('bad', !!bad);
}

// ---- the body ----

const deg = (rad) => rad * 180 / Math.PI;

function drawBody(b) {
  const pose = {};
  (b.axes || []).forEach((name, i) => {
    const short = name.replace('Section_r', '');
    pose[short] = b.pose[i];
  });
  if (b.pose) {
    const [pb, pm, pt] = AXES.map((a) => pose[a] || 0);
    $('robot').dataset.pose = AXES.map((a) => (pose[a] || 0).toFixed(4)).join(' ');
    // Seen from the front: a section's turn moves its seam across it; the
    // tilted joints of the middle and top lean what sits above them.
    const headings = [pb, pb + pm, pb + pm + pt];
    $('mark-bottom').setAttribute('x', 116 + 48 * Math.sin(headings[0]));
    $('mark-middle').setAttribute('x', 116 + 40 * Math.sin(headings[1]));
    $('mark-bottom').classList.toggle('back', Math.cos(headings[0]) < 0);
    $('mark-middle').classList.toggle('back', Math.cos(headings[1]) < 0);
    $('sec-middle').setAttribute('transform', `rotate(${(10 * Math.sin(pm)).toFixed(2)} 120 230)`);
    $('sec-top').setAttribute('transform', `rotate(${(10 * Math.sin(pt)).toFixed(2)} 120 150)`);
    const h = headings[2];
    const facing = Math.cos(h);
    $('face').setAttribute('transform',
      `translate(${(36 * Math.sin(h)).toFixed(2)} 0) translate(120 100) scale(${Math.max(Math.abs(facing), 0.05).toFixed(3)} 1) translate(-120 -100)`);
    $('face').setAttribute('opacity', facing < 0 ? '0.15' : '1');
    AXES.forEach((a, i) => {
      const r = [44, 31, 18][i];
      $('needle-' + a).setAttribute('x2', (50 + r * Math.sin(headings[i])).toFixed(2));
      $('needle-' + a).setAttribute('y2', (50 - r * Math.cos(headings[i])).toFixed(2));
      $('deg-' + a).textContent = `${['base', 'torso', 'head'][i]} ${deg(pose[a] || 0).toFixed(0)}°`;
    });
  }
  if (b.leds) drawLEDs(b.leds);
}

function drawLEDs(colours) {
  const g = $('leds');
  if (g.childNodes.length !== colours.length) {
    g.textContent = '';
    colours.forEach((_, i) => {
      const a = 2 * Math.PI * i / colours.length - Math.PI / 2;
      const c = document.createElementNS(SVGNS, 'circle');
      c.setAttribute('cx', (120 + 50 * Math.cos(a)).toFixed(2));
      c.setAttribute('cy', (100 + 50 * Math.sin(a)).toFixed(2));
      c.setAttribute('r', '4.5');
      g.appendChild(c);
    });
  }
  colours.forEach((col, i) => g.childNodes[i].setAttribute('fill', /^#[0-9a-f]{6}$/i.test(col) ? col : '#000000'));
  g.dataset.colours = colours.join(' ');
}

// The screen: the view on the highest layer shown; the eye when none is.
const layers = new Map();
function updateScreen(u) {
  const d = u.data || {};
  const layer = Number(d.layer) || 0;
  if (u.topic.endsWith('.show')) {
    layers.set(layer, { kind: String(d.view || ''), text: String(d.text || ''), name: d.name });
  } else if (layers.has(layer) && (!d.name || layers.get(layer).name === d.name)) {
    layers.delete(layer);
  }
  const top = layers.size ? layers.get(Math.max(...layers.keys())) : { kind: 'EYE' };
  $('eye').setAttribute('visibility', top.kind === 'EYE' ? 'visible' : 'hidden');
  $('screen-text').textContent = top.kind === 'TEXT' ? top.text.slice(0, 24)
    : (top.kind === 'EYE' || top.kind === 'NONE' ? '' : top.kind.toLowerCase());
}

// ---- the conversation ----

function pct(c) { return typeof c === 'number' ? ` ${Math.round(c * 100)}%` : ''; }
const str = (v) => (v === undefined || v === null ? '' : String(v));

function poseText(d) {
  return ['bottom', 'middle', 'top'].filter((a) => typeof d[a + 'Section_r'] === 'number')
    .map((a) => `${a} ${deg(d[a + 'Section_r']).toFixed(0)}°`).join(', ');
}

// What the robot's body did, in a few words.
function didText(what, d) {
  switch (what) {
    case 'led.set': return d.color ? 'LED ring ' + d.color : `LED ring: ${(d.pixels || []).length} colours`;
    case 'led.play': return 'LED ring plays ' + str(d.name);
    case 'motion.move': return 'moves to ' + poseText(d) + (d.name && d.name !== 'move' ? ` (${d.name})` : '');
    case 'motion.lookat': return 'looks at ' + str(d.want);
    case 'motion.animation': return 'animation ' + str(d.name);
    case 'motion.halt': return 'stops moving: ' + str(d.reason);
    case 'motion.recover': return 'motion recovers';
    case 'speaker.interrupted': return 'speech cut short';
    case 'volume.set': return d.gain > 0 ? `sound gain ${d.gain.toFixed(2)} (${(20 * Math.log10(d.gain)).toFixed(0)} dB)` : 'sound muted';
    case 'motor-power.set': return d.on ? 'motors on' : 'motors off';
    case 'display.show': return 'screen shows ' + str(d.view) + (d.text ? ` "${d.text}"` : '');
    case 'display.hide': return 'screen hides ' + str(d.name);
  }
  return what.startsWith('button.') ? 'button ' + what.slice(7) : what;
}

// describe words one update of the bus for people; null to show nothing.
function describe(u) {
  const d = u.data || {};
  switch (u.topic) {
    case 'ovos.utterance.handle':
      return { kind: 'typed', start: true, who: `you (${u.source || 'bus'})`, text: str((d.utterances || [])[0]) };
    case 'jibo.audio.recognized': {
      const h = d.hypotheses || [];
      if (!h.length) return { kind: 'heard', start: true, who: 'heard', text: '(speech, but no words recognised)' };
      return { kind: 'heard', start: true, who: 'heard', text: str(h[0].text),
        meta: pct(h[0].confidence) + h.slice(1, 4).map((o) => ` · or "${str(o.text)}"${pct(o.confidence)}`).join('') };
    }
    case 'jibo.audio.wake': return { kind: 'wake', start: true, who: 'woke', meta: str(d.source) };
    case 'jibo.audio.error': return { kind: 'error', who: 'hearing', text: str(d.error) };
    case 'ovos.intent.matched': {
      const slots = Object.entries(d.slots || {}).map(([k, v]) => `${k}=${v}`).join(', ');
      return { kind: 'matched', who: '→', bold: `${str(d.skill_id)}:${str(d.intent_name)}`,
        meta: `${str(d.pipeline_id)}${pct(u.confidence)}${u.why ? ' · ' + u.why : ''}${slots ? ' · ' + slots : ''}` };
    }
    case 'ovos.intent.unmatched': return { kind: 'unmatched', who: '→', text: 'no intent matched' };
    case 'ovos.utterance.speak': return d.utterance ? { kind: 'said', who: 'jibo', text: str(d.utterance) } : null;
    case 'ovos.intent.handler.error':
      return { kind: 'error', who: 'error', text: str(d.exception), meta: `${str(d.skill_id)}:${str(d.intent_name)}` };
    case 'jibo.skill.error': return { kind: 'error', who: 'error', text: str(d.error), meta: str(d.skill_id) };
    case 'ovos.stop': return { kind: 'stop', start: true, who: 'stop', meta: u.source };
    case 'ovos.utterance.handled': return d.error ? { kind: 'error', who: 'error', text: str(d.error) } : null;
  }
  if (u.topic.startsWith('jibo.body.')) {
    return { kind: 'did', text: didText(u.topic.slice('jibo.body.'.length), d) };
  }
  return null;
}

function addItem(it, at) {
  if (!it) return;
  const li = el('li', it.kind);
  li.dataset.kind = it.kind;
  if (it.start) li.classList.add('start');
  if (it.who) li.appendChild(el('span', 'who', it.who));
  if (it.kind === 'did') {
    const m = /#[0-9a-f]{6}/i.exec(it.text);
    if (m) {
      const s = el('span', 'swatch');
      s.style.background = m[0];
      li.appendChild(s);
    }
  }
  if (it.bold) li.appendChild(el('b', '', it.bold));
  if (it.text) li.appendChild(document.createTextNode(it.text));
  if (it.meta) li.appendChild(el('span', 'meta', it.meta));
  li.title = new Date(at).toLocaleTimeString();
  const list = $('conversation');
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 20;
  list.appendChild(li);
  while (list.childNodes.length > MAX_ITEMS) list.removeChild(list.firstChild);
  if (atEnd) list.scrollTop = list.scrollHeight;
}

function onUpdate(u) {
  if (u.topic.startsWith('jibo.body.display.')) updateScreen(u);
  addItem(describe(u), u.at);
}

// ---- live updates ----

let source = null;
let retry = null;
function connect() {
  if (source) source.close();
  source = new EventSource('/api/events');
  source.onopen = () => {
    $('link').textContent = 'live';
    $('link').className = 'link up';
    $('conversation').textContent = ''; // the server sends the recent conversation again
    layers.clear();
  };
  source.onerror = () => {
    $('link').textContent = 'reconnecting…';
    $('link').className = 'link down';
    if (source.readyState === EventSource.CLOSED && !retry) {
      // Refused (too many pages, or the robot restarting): try again later.
      retry = setTimeout(() => { retry = null; connect(); }, 5000);
    }
  };
  source.addEventListener('update', (e) => onUpdate(JSON.parse(e.data)));
  source.addEventListener('body', (e) => drawBody(JSON.parse(e.data)));
  source.addEventListener('note', (e) => addItem({ kind: 'note', who: 'note', text: JSON.parse(e.data).text }, Date.now()));
}

// ---- status, skills, technician ----

function showStatus(s) {
  const dl = $('status');
  dl.textContent = '';
  const row = (k, v) => { if (v === undefined || v === '') return; dl.appendChild(el('dt', '', k)); dl.appendChild(el('dd', '', v)); };
  row('version', `${s.version} (${s.platform})`);
  row('board', s.board);
  row('uptime', `${Math.round(s.uptime_s)} s`);
  row('hub', s.hub);
  if (s.cpu) row('cpu', `${s.cpu.process_pct_of_one_core.toFixed(1)}% of one core${s.cpu.load ? '; load ' + s.cpu.load : ''}`);
  if (s.memory) row('memory', `heap ${(s.memory.heap_bytes / 1048576).toFixed(1)} MiB, ${s.memory.goroutines} goroutines`);
  if (s.control_loop) row('control loop', `${s.control_loop.rate_hz} Hz, p99 late ${s.control_loop.p99_ms} ms${s.control_loop.fault ? '; FAULT ' + s.control_loop.fault : ''}`);
  if (s.motors) row('motors', s.motors.powered ? (s.motors.moving ? 'on, moving' : 'on') : 'off');
  if (s.audio) row('audio', s.audio.error || `${s.audio.rms_dbfs.toFixed(1)} dBFS`);
  if (s.bus) row('bus', `${s.bus.published} messages, ${s.bus.subscribers} subscribers`);
  const w = $('warnings');
  w.textContent = '';
  (s.last_errors || []).forEach((e) => w.appendChild(el('li', '', `${new Date(e.time).toLocaleTimeString()} ${e.level} ${e.msg} ${(e.attrs || []).join(' ')}`)));
  if (!(s.last_errors || []).length) w.appendChild(el('li', 'none', 'none'));
}

async function pollStatus() {
  if (document.hidden) return;
  try { showStatus(await api('GET', '/api/status')); } catch (e) { $('status').textContent = e.message; }
}

// The skills panel: each skill with its intents and a few of the ways to
// say each, put together from the manifests and the intent service.
async function loadSkills() {
  try {
    const d = await api('GET', '/api/skills');
    const byBus = new Map();
    const skill = (bus) => {
      if (!byBus.has(bus)) byBus.set(bus, { id: bus, name: bus, intents: [] });
      return byBus.get(bus);
    };
    d.skills.forEach((m) => Object.assign(skill(m.bus_id), m));
    (d.intents || []).filter((i) => !i.session_id || i.session_id === 'default').forEach((i) => skill(i.skill_id).intents.push(i));
    const box = $('skills');
    box.textContent = '';
    [...byBus.entries()].sort((a, b) => a[0].localeCompare(b[0])).forEach(([bus, s]) => {
      const det = el('details');
      const sum = el('summary', '', s.name);
      sum.appendChild(el('span', 'meta', ` ${s.id} · ${s.intents.length} intents`));
      det.appendChild(sum);
      if (s.description) det.appendChild(el('div', 'meta', s.description));
      const ul = el('ul');
      s.intents.forEach((i) => {
        const li = el('li', i.enabled ? '' : 'off', `${i.intent_name} (${i.method})`);
        const def = ((d.definitions || {})[bus] || []).find((x) => x.intent_name === i.intent_name && x.method === i.method);
        ((def && def.definition && def.definition.samples) || []).slice(0, 3).forEach((x) => li.appendChild(el('div', 'sample', String(x))));
        ul.appendChild(li);
      });
      det.appendChild(ul);
      box.appendChild(det);
    });
  } catch (e) { $('skills').textContent = e.message; }
}

function showSession(s) {
  session = s;
  $('robot-name').textContent = `${s.board} · ${s.version}`;
  $('tech-state').textContent = s.technician ? 'technician' : 'visitor';
  $('unlock').hidden = s.technician || !s.pin_configured;
  $('lock').hidden = !s.technician;
  $('tech-panel').hidden = !s.technician;
  $('say-text').disabled = !s.may_talk;
  $('say-text').placeholder = s.may_talk ? 'say something to the robot' : 'unlock with the technician PIN to talk from here';
  if (s.technician) loadConfig();
}

async function loadSession() {
  try { showSession(await api('GET', '/api/session')); } catch (e) { note('say-note', e.message, true); }
}

async function loadConfig() {
  try {
    const d = await api('GET', '/api/config');
    const body = $('config').tBodies[0];
    body.textContent = '';
    d.settings.forEach((st) => {
      if (st.key === 'volume') {
        $('volume-row').hidden = false;
        $('volume').value = st.value;
        $('volume-out').textContent = st.value;
      }
      const tr = el('tr');
      const td = (c) => { const x = el('td'); if (typeof c === 'string') x.textContent = c; else x.appendChild(c); tr.appendChild(x); return x; };
      td(st.key).title = st.help;
      const f = el('form');
      const inp = el('input');
      inp.value = st.value;
      inp.setAttribute('aria-label', st.key);
      f.appendChild(inp);
      f.addEventListener('submit', (e) => { e.preventDefault(); setConfig(st.key, inp.value); });
      td(f);
      tr.appendChild(el('td', 'meta', st.help));
      body.appendChild(tr);
    });
  } catch (e) { note('tech-note', e.message, true); }
}

async function setConfig(key, value) {
  try {
    const d = await api('POST', '/api/config', { set: { [key]: String(value) } });
    note('tech-note', d.changes.map((c) => `${c.key}: ${c.old} → ${c.new}`).join('; '));
    loadConfig();
  } catch (e) { note('tech-note', e.message, true); loadSession(); }
}

// ---- wiring the page ----

$('say').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('say-text');
  const text = input.value.trim();
  if (!text) return;
  try {
    await api('POST', '/api/say', { text });
    input.value = '';
    note('say-note', '');
  } catch (err) { note('say-note', err.message, true); }
});

$('stop').addEventListener('click', async () => {
  try { await api('POST', '/api/stop', {}); note('say-note', 'stopped'); } catch (err) { note('say-note', err.message, true); }
});

$('unlock').addEventListener('submit', async (e) => {
  e.preventDefault();
  const pin = $('pin');
  try {
    showSession(await api('POST', '/api/unlock', { pin: pin.value }));
    note('say-note', '');
  } catch (err) { note('say-note', err.message, true); }
  pin.value = '';
});

$('lock').addEventListener('click', async () => {
  try { showSession(await api('POST', '/api/lock', {})); } catch (err) { note('say-note', err.message, true); }
});

$('volume').addEventListener('input', () => { $('volume-out').textContent = $('volume').value; });
$('volume').addEventListener('change', () => setConfig('volume', $('volume').value));

connect();
loadSession();
loadSkills();
pollStatus();
setInterval(pollStatus, 5000);
document.addEventListener('visibilitychange', pollStatus);

// Attractor web page: the runs list, the new-run form and the live view of one run (graph,
// stages, events, human gates), talking to the `attractor serve` API of docs/server.md; the
// Editor tab is editor.js, which uses the hooks of window.attractor (end of this file).
// Plain DOM, no framework. Every string from the server goes in as text (textContent, text
// nodes), never as HTML; the only markup inserted is the run's SVG, after sanitizeSvg.
'use strict';

const ACTIVE = ['queued', 'running'];
const RESUMABLE = ['interrupted', 'cancelled', 'stopped', 'failed'];
const GRAPH_EVENTS = /^(StageStarted|StageCompleted|StageFailed|Pipeline)/;
const GATE_EVENTS = ['InterviewStarted', 'InterviewCompleted', 'InterviewTimeout'];
// Events after which the header's running / queued / at-a-gate counts may have changed.
const COUNT_EVENTS = /^(Pipeline|Interview)/;
const MAX_LOG = 5000;

const state = { runs: [], run: null };

// ---------------------------------------------------------------- helpers

const $ = (selector) => document.querySelector(selector);
const enc = encodeURIComponent;

// Numbers one call of a refresher named `name` on `holder` and returns a test that is true while
// no later call has started. Responses can arrive out of order (the page polls, the event stream
// and the buttons all refresh), so only the newest call's answer is shown: an older one could
// bring back a state the run has left, such as "running" after "cancelled".
function newestCall(holder, name) {
  const key = name + 'Seq';
  const seq = holder[key] = (holder[key] || 0) + 1;
  return () => holder[key] === seq;
}

// el('tr', {class: 'x', text: 'y', 'data-node': id}, child, 'text', ...): a new element.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('data-') || key.startsWith('aria-') || key === 'role') node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) if (child !== null && child !== undefined && child !== '') node.append(child);
  return node;
}

// One JSON request; resolves to {ok, status, data} and never throws.
async function api(method, path, body) {
  const options = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    return { ok: false, status: 0, data: { error: 'the server cannot be reached' } };
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text.slice(0, 300) }; }
  if (!response.ok && !(data && data.error)) data = { error: `HTTP ${response.status}` };
  showBanner(response.status === 401 ? 'Not logged in: open the login address printed by ' +
    '"attractor serve", or paste the token at /login.' : null);
  return { ok: response.ok, status: response.status, data };
}

function showBanner(message) {
  const banner = $('#banner');
  banner.textContent = message || '';
  banner.hidden = !message;
}

function badge(status, id) {
  const name = String(status || 'unknown');
  return el('span', { id, class: 'badge status-' + name.replace(/[^a-z_]/gi, ''), text: name });
}

function fmtDuration(ms) {
  if (ms === null || ms === undefined) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

function fmtTime(iso) {
  const date = new Date(iso);
  return iso && !isNaN(date) ? date.toLocaleString() : (iso || '');
}

// Today's times without the date, for the runs list.
function fmtShortTime(iso) {
  const date = new Date(iso);
  if (!iso || isNaN(date)) return iso || '';
  return date.toDateString() === new Date().toDateString() ? date.toLocaleTimeString() : date.toLocaleDateString();
}

function fmtClock(seconds) {
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, '0')}`;
}

function isActive(run) { return !!run && !!run.info && ACTIVE.includes(run.info.status); }

// ---------------------------------------------------------------- runs list

async function refreshRuns() {
  const newest = newestCall(state, 'runs');
  const r = await api('GET', '/pipelines');
  if (!newest() || !r.ok || !Array.isArray(r.data)) return;
  state.runs = r.data;
  renderRuns();
}

function renderRuns() {
  $('#runs tbody').replaceChildren(...state.runs.map(runRow));
  $('#runs-empty').hidden = state.runs.length > 0;
}

function runRow(run) {
  const selected = state.run && state.run.id === run.id;
  const gate = run.pending_questions
    ? el('span', { class: 'gate-flag', title: 'waiting for an answer', text: `${run.pending_questions} waiting` }) : null;
  const row = el('tr', { 'data-run-id': run.id, class: selected ? 'selected' : '' },
    el('td', {}, el('div', { class: 'run-name', text: run.graph || '', title: run.graph || '' }),
      el('div', { class: 'run-id', text: run.id, title: run.id })),
    el('td', {}, badge(run.status)),
    el('td', { text: fmtShortTime(run.started), title: fmtTime(run.started) }),
    el('td', { text: fmtDuration(run.duration_ms) }),
    el('td', { text: run.node || '' }),
    el('td', {}, gate));
  row.addEventListener('click', () => { showTab('run'); location.hash = 'run=' + enc(run.id); });
  return row;
}

// The header's counts; refreshed with every poll and on the events that change them.
async function refreshHealth() {
  const newest = newestCall(state, 'health');
  const r = await api('GET', '/health');
  if (!newest() || !r.ok || !r.data) return;
  $('#health').textContent = `v${r.data.version}: ${r.data.running} running, ${r.data.queued} queued, ` +
    `${r.data.at_gate ?? 0} at a gate`;
}

// ---------------------------------------------------------------- new-run form

async function loadGraphs() {
  const r = await api('GET', '/graphs');
  const graphs = r.ok && Array.isArray(r.data) ? r.data : [];
  const select = $('#graph-select');
  const chosen = select.value;
  select.replaceChildren(...graphs.map((g) =>
    el('option', { value: g.path, text: (g.name && g.name !== g.path ? `${g.name} (${g.path})` : g.path) +
      (g.ok === false ? ' (has errors)' : '') })));
  if (!graphs.length) {
    select.append(el('option', { value: '', text: '(no graphs in the graphs folder)' }));
    $('#source-dot').checked = true;
  }
  select.disabled = !graphs.length;
  if (graphs.some((g) => g.path === chosen)) select.value = chosen;
  return graphs;
}

function addContextRow() {
  const row = el('div', { class: 'context-row' },
    el('input', { class: 'ctx-key', placeholder: 'key', 'aria-label': 'context key' }),
    el('input', { class: 'ctx-value', placeholder: 'value', 'aria-label': 'context value' }));
  const remove = el('button', { type: 'button', class: 'link', title: 'remove', text: 'remove' });
  remove.addEventListener('click', () => row.remove());
  row.append(remove);
  $('#context-rows').append(row);
  row.querySelector('.ctx-key').focus();
}

function collectRequest() {
  const request = {};
  if ($('#source-dot').checked) request.dot = $('#dot-input').value;
  else request.graph = $('#graph-select').value;
  const context = {};
  for (const row of document.querySelectorAll('#context-rows .context-row')) {
    const key = row.querySelector('.ctx-key').value.trim();
    if (key) context[key] = row.querySelector('.ctx-value').value;
  }
  if (Object.keys(context).length) request.context = context;
  if ($('#backend').value) request.backend = $('#backend').value;
  if ($('#auto-approve').checked) request.auto_approve = true;
  return request;
}

async function startRun(event) {
  event.preventDefault();
  showFormError(null);
  const button = $('#start-run');
  button.disabled = true;
  const r = await api('POST', '/pipelines', collectRequest());
  button.disabled = false;
  if (!r.ok) { showFormError(r.data); return; }
  location.hash = 'run=' + enc(r.data.id);
  refreshRuns();
  refreshHealth();
}

function showFormError(data) {
  const box = $('#form-error');
  if (!data) { box.hidden = true; box.replaceChildren(); return; }
  const diagnostics = Array.isArray(data.diagnostics) ? data.diagnostics : [];
  box.replaceChildren(el('p', { text: data.error || 'the run could not start' }),
    diagnostics.length ? el('ul', {}, ...diagnostics.map(diagnosticItem)) : null);
  box.hidden = false;
}

function diagnosticItem(d) {
  const where = d.line !== null && d.line !== undefined ? ` ${d.line}:${d.column ?? 1}` : '';
  return el('li', { class: 'diag diag-' + String(d.severity || '').replace(/\W/g, '') },
    el('code', { text: d.rule || '' }), `${where} ${d.message || ''}`,
    d.fix ? el('div', { class: 'muted', text: 'fix: ' + d.fix }) : null);
}

// ---------------------------------------------------------------- run view

// The hash names the open run (#run=ID), so a reload keeps it.
function openRunFromHash() {
  const match = /^#run=(.+)$/.exec(location.hash);
  const id = match ? decodeURIComponent(match[1]) : null;
  if (state.run && state.run.id === id) return;
  closeRun();
  $('#run-view').hidden = !id;
  $('#no-run').hidden = !!id;
  if (id) {
    state.run = { id, info: null, source: null, lastId: 0, stages: new Map(), rows: new Map(),
      timers: {}, questions: [], questionsKey: null, selected: null };
  }
  renderRuns();
  if (!id) return;
  resetRunView(id);
  refreshRunInfo();
  connectEvents(state.run);
  refreshGraph(state.run);
  refreshQuestions();
}

function closeRun() {
  const run = state.run;
  if (!run) return;
  if (run.source) run.source.close();
  for (const timer of Object.values(run.timers)) { clearTimeout(timer); clearInterval(timer); }
  state.run = null;
}

function resetRunView(id) {
  $('#run-title').textContent = id;
  $('#run-status').replaceWith(badge('loading', 'run-status'));
  $('#run-meta').textContent = '';
  showRunMessage(null);
  $('#graph-view').replaceChildren(el('p', { class: 'muted', text: 'loading the graph…' }));
  $('#stages tbody').replaceChildren();
  $('#stage-detail').hidden = true;
  $('#stage-detail').replaceChildren();
  $('#event-log').replaceChildren();
  $('#gate-panel').hidden = true;
  $('#gate-panel').replaceChildren();
}

function showRunMessage(message) {
  $('#run-message').textContent = message || '';
  $('#run-message').hidden = !message;
}

// Runs `fn` once, `ms` after the last call with the same name.
function debounce(run, name, fn, ms) {
  clearTimeout(run.timers[name]);
  run.timers[name] = setTimeout(fn, ms);
}

async function refreshRunInfo() {
  const run = state.run;
  if (!run) return;
  const newest = newestCall(run, 'info');
  const r = await api('GET', '/pipelines/' + enc(run.id));
  if (state.run !== run || !newest()) return;
  if (!r.ok) { showRunMessage(r.data.error); return; }
  run.info = r.data;
  renderRunHeader(run);
  if (isActive(run) && !run.source) connectEvents(run);
  if (!isActive(run) && run.questions.length) {  // a run that stopped asks nothing any more
    run.questions = [];
    run.questionsKey = '';
    renderGate(run);
  }
}

function renderRunHeader(run) {
  const info = run.info;
  const status = info.status;
  $('#run-title').textContent = info.graph ? `${info.graph}: ${run.id}` : run.id;
  $('#run-status').replaceWith(badge(status, 'run-status'));
  const meta = [info.started && 'started ' + fmtTime(info.started),
    info.duration_ms != null && 'took ' + fmtDuration(info.duration_ms),
    info.node && 'at ' + info.node, info.reason,
    info.workspace?.mode === 'worktree' && `branch ${info.workspace.branch}` +
      (info.changed_files != null ? `, ${info.changed_files} file${info.changed_files === 1 ? '' : 's'} changed` : '')];
  $('#run-meta').textContent = meta.filter(Boolean).join(' · ');
  $('#cancel-run').disabled = !ACTIVE.includes(status);
  $('#resume-run').disabled = !RESUMABLE.includes(status);
}

async function runAction(action) {
  const run = state.run;
  if (!run) return;
  const r = await api('POST', `/pipelines/${enc(run.id)}/${action}`);
  if (state.run !== run) return;
  showRunMessage(r.ok ? null : r.data.error);
  refreshHealth();
  await refreshRunInfo();
  if (r.ok && action === 'resume' && !run.source && state.run === run) connectEvents(run);
}

// ---------------------------------------------------------------- live events

// `end` closes the stream; `reconnect` asks for a fresh one, which starts again from the first
// event (a new EventSource has no Last-Event-ID), so ids already seen are skipped.
function connectEvents(run) {
  if (run.source) run.source.close();
  const source = new EventSource(`/pipelines/${enc(run.id)}/events`);
  run.source = source;
  const stop = () => { source.close(); if (run.source === source) run.source = null; };
  source.onmessage = (message) => onEventMessage(run, message);
  source.addEventListener('end', () => { stop(); if (state.run === run) refreshRunInfo(); });
  source.addEventListener('reconnect', () => {
    stop();
    if (state.run === run) connectEvents(run);
  });
  // A dropped stream of a live run reconnects by itself (with Last-Event-ID); one of a finished
  // run has nothing more to say.
  source.onerror = () => { if (source.readyState === EventSource.CLOSED || (run.info && !isActive(run))) stop(); };
}

function onEventMessage(run, message) {
  if (state.run !== run) return;
  const id = Number(message.lastEventId);
  if (id && id <= run.lastId) return;
  if (id) run.lastId = id;
  let event;
  try { event = JSON.parse(message.data); } catch (e) { return; }
  if (!event || typeof event.event !== 'string') return;
  appendLog(event);
  updateStage(run, event);
  if (GRAPH_EVENTS.test(event.event)) debounce(run, 'graph', () => refreshGraph(run), 300);
  if (GATE_EVENTS.includes(event.event)) debounce(run, 'questions', refreshQuestions, 100);
  if (event.event.startsWith('Pipeline')) debounce(run, 'info', refreshRunInfo, 300);
  if (COUNT_EVENTS.test(event.event)) debounce(run, 'health', refreshHealth, 100);
}

function appendLog(event) {
  const log = $('#event-log');
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
  const time = event.ts ? String(event.ts).replace(/^.*T/, '').replace(/Z$/, '') : '';
  log.append(el('li', { 'data-event': event.event },
    el('span', { class: 'ev-time', text: time }),
    el('span', { class: 'ev-name', text: event.event }),
    el('span', { class: 'ev-fields', text: eventFields(event) })));
  while (log.childElementCount > MAX_LOG) log.firstElementChild.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

// "key=value" for each field but the name and time; objects as compact JSON, cut short.
function eventFields(event) {
  const parts = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === 'event' || key === 'ts' || value === null || value === '') continue;
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    parts.push(`${key}=${text.length > 120 ? text.slice(0, 117) + '…' : text}`);
  }
  return parts.join('  ');
}

// ---------------------------------------------------------------- stages

// A run that stopped leaves no stage running: the one it was in shows as interrupted.
function stopRunningStages(run) {
  for (const stage of run.stages.values()) {
    if (stage.status !== 'running') continue;
    stage.status = 'interrupted';
    renderStageRow(run, stage);
  }
}

// After a rewind (RunRewound): the stages the rewound state never ran leave the table, and the
// others show the visits it kept.
function rewindStages(run, event) {
  const visits = event.visit_counts || {};
  for (const [node, stage] of run.stages) {
    if (!visits[node]) {
      run.stages.delete(node);
      run.rows.get(node)?.remove();
      run.rows.delete(node);
    } else {
      stage.visits = visits[node];
      renderStageRow(run, stage);
    }
  }
}

function updateStage(run, event) {
  if (event.event === 'RunRewound') return rewindStages(run, event);
  if (/^Pipeline(Interrupted|Failed)$|^BudgetExhausted$/.test(event.event)) return stopRunningStages(run);
  if (!event.event.startsWith('Stage') || typeof event.name !== 'string') return;
  const stage = run.stages.get(event.name) || { node: event.name, status: 'pending', duration_ms: null,
    attempt: 0, visits: 0, retries: 0, input_tokens: 0, output_tokens: 0, error: '' };
  switch (event.event) {
    case 'StageStarted':
      stage.status = 'running';
      stage.attempt = event.attempt || 1;
      if (stage.attempt === 1) stage.visits += 1;
      break;
    case 'StageCompleted':
      stage.status = event.status || 'success';
      stage.duration_ms = event.duration_ms ?? null;
      break;
    case 'StageFailed':
      stage.status = event.will_retry ? 'retrying' : (event.status || 'fail');
      stage.duration_ms = event.duration_ms ?? null;
      stage.error = event.error || '';
      break;
    case 'StageRetrying': stage.retries += 1; break;
    case 'StageWaiting':  // a sign of life: the time the stage has waited so far
      stage.status = 'running';
      stage.duration_ms = event.elapsed_ms ?? null;
      break;
    case 'StageUsage':
      stage.input_tokens += event.input_tokens || 0;
      stage.output_tokens += event.output_tokens || 0;
      break;
    default: return;
  }
  run.stages.set(event.name, stage);
  renderStageRow(run, stage);
  if (run.selected === stage.node && /Completed|Failed/.test(event.event)) {
    debounce(run, 'detail', () => showStage(run, stage.node), 300);
  }
}

function renderStageRow(run, stage) {
  let row = run.rows.get(stage.node);
  if (!row) {
    row = el('tr', { 'data-node': stage.node });
    row.addEventListener('click', () => showStage(run, stage.node));
    run.rows.set(stage.node, row);
    $('#stages tbody').append(row);
  }
  let attempts = String(stage.attempt);
  if (stage.retries) attempts += ` (${stage.retries} ${stage.retries === 1 ? 'retry' : 'retries'})`;
  if (stage.visits > 1) attempts += `, visit ${stage.visits}`;
  const tokens = stage.input_tokens || stage.output_tokens ? `${stage.input_tokens} / ${stage.output_tokens}` : '';
  row.title = stage.error;
  row.replaceChildren(el('td', {}, el('code', { text: stage.node })), el('td', {}, badge(stage.status)),
    el('td', { text: fmtDuration(stage.duration_ms) }), el('td', { text: attempts }), el('td', { text: tokens }));
}

async function showStage(run, node) {
  run.selected = node;
  for (const [name, row] of run.rows) row.classList.toggle('selected', name === node);
  const pane = $('#stage-detail');
  pane.hidden = false;
  pane.replaceChildren(stageHeader(node), el('p', { class: 'muted', text: 'loading…' }));
  const r = await api('GET', `/pipelines/${enc(run.id)}/stages/${enc(node)}`);
  if (state.run !== run || run.selected !== node) return;
  if (!r.ok) { pane.replaceChildren(stageHeader(node), el('p', { class: 'error', text: r.data.error })); return; }
  pane.replaceChildren(stageHeader(node), ...stageBody(r.data));
  if (run.info?.workspace?.mode !== 'worktree') return;
  const d = await api('GET', `/pipelines/${enc(run.id)}/stages/${enc(node)}/diff`);
  if (state.run !== run || run.selected !== node) return;
  pane.insertBefore(el('div', { class: 'stage-diff' }, ...diffSection(d)), pane.children[1] || null);
  if (!isActive(run)) pane.insertBefore(stageActions(run, node), pane.children[1] || null);
}

// Rewind and Fork for a stage of a stopped worktree run (docs/workspace.md, section 6): both go
// back to the stage's last visit; Resume then continues the rewound run or the fork.
function stageActions(run, node) {
  const rewind = el('button', { type: 'button', id: 'rewind-stage', text: 'Rewind to here' });
  const fork = el('button', { type: 'button', id: 'fork-stage', text: 'Fork from here' });
  rewind.title = 'Take this run back to just after this stage; later stages are kept aside';
  fork.title = 'Make a new run from just after this stage; this run stays as it is';
  rewind.addEventListener('click', async () => {
    const r = await api('POST', `/pipelines/${enc(run.id)}/rewind`, { to: node });
    if (state.run !== run) return;
    if (!r.ok) { showRunMessage(r.data.error); return; }
    closeRun();
    openRunFromHash();
    showRunMessage(`Rewound to ${r.data.to}: ${r.data.moved} later stage folder${r.data.moved === 1 ? '' : 's'} ` +
      `kept in ${r.data.archive}. Resume continues at ${r.data.next_node}.`);
  });
  fork.addEventListener('click', async () => {
    const r = await api('POST', `/pipelines/${enc(run.id)}/fork`, { at: node });
    if (state.run !== run) return;
    if (!r.ok) { showRunMessage(r.data.error); return; }
    location.hash = 'run=' + enc(r.data.id);
    refreshRuns();
  });
  return el('div', { class: 'stage-actions' }, rewind, fork);
}

// A stage's change in a worktree run (GET .../stages/NODE/diff): the unified diff, its lines
// coloured by kind, all of it text.
function diffSection(r) {
  if (!r.ok) return [el('h4', { text: 'changes' }), el('p', { class: 'error', text: r.data.error })];
  const files = r.data.files;
  const title = el('h4', { text: files ? `changes (${files} file${files === 1 ? '' : 's'})` : 'changes: none' });
  if (!files) return [title];
  const pre = el('pre', { class: 'file diff', 'data-file': 'diff' });
  for (const line of String(r.data.patch).split('\n')) {
    const kind = line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') ? 'meta'
      : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : '';
    pre.append(el('span', { class: kind ? 'diff-' + kind : '', text: line + '\n' }));
  }
  return [title, pre];
}

function stageHeader(node) {
  const close = el('button', { type: 'button', class: 'link', text: 'close' });
  close.addEventListener('click', () => {
    $('#stage-detail').hidden = true;
    if (state.run) state.run.selected = null;
  });
  return el('div', { class: 'detail-head' }, el('h3', {}, 'Stage ', el('code', { text: node })), close);
}

function stageBody(detail) {
  const parts = [el('h4', { text: 'status.json' }),
    el('pre', { class: 'file', 'data-file': 'status.json', text: JSON.stringify(detail.status ?? null, null, 2) })];
  const truncated = new Set(detail.truncated || []);
  for (const [name, content] of Object.entries(detail.files || {})) {
    if (name === 'status.json' && detail.status) continue;  // shown above
    parts.push(el('h4', { text: name + (truncated.has(name) ? ' (cut at 256 KiB)' : '') }),
      el('pre', { class: 'file', 'data-file': name, text: String(content) }));
  }
  if (detail.visits && Object.keys(detail.visits).length) {
    parts.push(el('h4', { text: 'earlier visits' }), el('pre', { text: JSON.stringify(detail.visits, null, 2) }));
  }
  return parts;
}

// ---------------------------------------------------------------- graph

async function refreshGraph(run) {
  const newest = newestCall(run, 'graph');
  let text = '';
  let ok = false;
  try {
    const response = await fetch(`/pipelines/${enc(run.id)}/graph`, { credentials: 'same-origin' });
    text = await response.text();
    ok = response.ok;
  } catch (e) {
    text = 'the server cannot be reached';
  }
  if (state.run !== run || !newest()) return;
  const svg = ok ? sanitizeSvg(text) : null;
  const view = $('#graph-view');
  if (svg) view.replaceChildren(svg);
  else view.replaceChildren(el('p', { class: 'error', text: 'No graph: ' + (ok ? 'not SVG' : errorText(text)) }));
}

function errorText(body) {
  try { return JSON.parse(body).error || body; } catch (e) { return body.slice(0, 300); }
}

// Parses the SVG as XML and drops anything that could run code: scripts, foreign HTML,
// animations (which can rewrite attributes), on* handlers and javascript: links.
function sanitizeSvg(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (!root || root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) return null;
  for (const bad of root.querySelectorAll('script, foreignObject, set, animate, animateMotion, animateTransform')) {
    bad.remove();
  }
  for (const node of [root, ...root.querySelectorAll('*')]) {
    for (const attr of [...node.attributes]) {
      const name = attr.name.toLowerCase();
      const link = name === 'href' || name.endsWith(':href');
      if (name.startsWith('on') || (link && /^\s*(javascript|data):/i.test(attr.value))) node.removeAttribute(attr.name);
    }
  }
  return document.importNode(root, true);
}

// A click on a node of the drawing opens that stage.
function onGraphClick(event) {
  const node = event.target.closest && event.target.closest('g.node');
  const title = node && node.querySelector('title');
  if (title && state.run) { event.preventDefault(); showStage(state.run, title.textContent); }
}

// ---------------------------------------------------------------- human gates

async function refreshQuestions() {
  const run = state.run;
  if (!run) return;
  const newest = newestCall(run, 'questions');
  const r = await api('GET', `/pipelines/${enc(run.id)}/questions`);
  if (state.run !== run || !newest() || !r.ok) return;
  const questions = Array.isArray(r.data) ? r.data : [];
  const key = questions.map((q) => q.id).join('\n');
  if (key === run.questionsKey) return;  // unchanged: keep what the user is typing
  run.questionsKey = key;
  run.questions = questions;
  renderGate(run);
}

// Yes/no and confirmation gates get Yes and No; the others one button per option.
function gateChoices(question) {
  if (question.type === 'yes_no' || question.type === 'confirmation') {
    return [{ key: 'Y', label: 'Yes', answer: 'yes' }, { key: 'N', label: 'No', answer: 'no' }];
  }
  return (question.options || []).map((o) => ({ key: o.key, label: o.label || o.key, answer: o.key }));
}

function renderGate(run) {
  const panel = $('#gate-panel');
  clearInterval(run.timers.countdown);
  const question = run.questions[0];
  panel.hidden = !question;
  if (!question) { panel.replaceChildren(); return; }
  const more = run.questions.length > 1 ? ` (${run.questions.length - 1} more waiting)` : '';
  panel.setAttribute('data-question-id', question.id);
  panel.replaceChildren(
    el('div', { class: 'gate-head' }, el('strong', { text: 'Waiting for an answer' }), ' at stage ',
      el('code', { id: 'gate-stage', text: question.stage || '' }), more),
    el('p', { id: 'gate-question', class: 'gate-question', text: question.text || '' }),
    question.type === 'freeform' ? freeformInput(run, question) : choiceButtons(run, question),
    el('p', { id: 'gate-countdown', class: 'muted' }),
    el('p', { id: 'gate-error', class: 'error', role: 'alert', hidden: true }));
  startCountdown(run, question);
}

function choiceButtons(run, question) {
  const buttons = gateChoices(question).map((choice) => {
    const button = el('button', { type: 'button', class: 'gate-option', 'data-answer': choice.answer,
      'data-key': choice.key }, choice.label, ' ', el('kbd', { text: choice.key }));
    button.addEventListener('click', () => answerGate(run, question, choice.answer));
    return button;
  });
  return el('div', { class: 'gate-options' }, ...buttons);
}

function freeformInput(run, question) {
  const form = el('form', { class: 'gate-options' },
    el('input', { id: 'gate-text', type: 'text', placeholder: 'your answer', 'aria-label': 'answer' }),
    el('button', { id: 'gate-send', type: 'submit', class: 'primary', text: 'Send' }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    answerGate(run, question, $('#gate-text').value);
  });
  return form;
}

function defaultChoice(question) {
  if (question.default === null || question.default === undefined) return null;
  const wanted = String(question.default);
  const match = (question.options || []).find((o) => o.key === wanted || o.label === wanted);
  return match ? match.label : wanted;
}

function startCountdown(run, question) {
  const box = $('#gate-countdown');
  const fallback = defaultChoice(question);
  const then = fallback ? `then the default "${fallback}" is picked` : 'no default choice';
  if (question.timeout_s === null || question.timeout_s === undefined) {
    box.textContent = fallback ? `No timeout; default: "${fallback}"` : 'No timeout.';
    return;
  }
  const deadline = Date.parse(question.asked_at) + question.timeout_s * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    box.textContent = isNaN(left) ? `Times out after ${question.timeout_s} s; ${then}`
      : `Times out in ${fmtClock(left)}; ${then}`;
  };
  tick();
  run.timers.countdown = setInterval(tick, 1000);
}

async function answerGate(run, question, answer) {
  const panel = $('#gate-panel');
  const controls = panel.querySelectorAll('button, input');
  controls.forEach((c) => { c.disabled = true; });
  const r = await api('POST', `/pipelines/${enc(run.id)}/questions/${enc(question.id)}/answer`, { answer });
  if (state.run !== run) return;
  controls.forEach((c) => { c.disabled = false; });
  if (!r.ok) {
    const error = $('#gate-error');
    error.textContent = r.data.error;
    error.hidden = false;
    return;
  }
  run.questions = run.questions.filter((q) => q.id !== question.id);
  run.questionsKey = run.questions.map((q) => q.id).join('\n');
  renderGate(run);
  refreshQuestions();
}

// An option's accelerator key answers the open question, unless focus is in a form field.
function onKeyDown(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  if (target && target.closest && target.closest('input, textarea, select, [contenteditable]')) return;
  const run = state.run;
  const question = run && run.questions[0];
  if (!question || question.type === 'freeform' || $('#gate-panel').hidden) return;
  const choice = gateChoices(question).find((c) => c.key && c.key.toUpperCase() === event.key.toUpperCase());
  if (!choice) return;
  event.preventDefault();
  answerGate(run, question, choice.answer);
}

// ---------------------------------------------------------------- tabs

// The right-hand pane shows the open run or the editor; opening a run shows the run.
function showTab(name) {
  for (const tab of ['run', 'editor']) {
    $('#tab-' + tab).setAttribute('aria-selected', String(tab === name));
    $('#' + tab + '-panel').hidden = tab !== name;
  }
  document.dispatchEvent(new CustomEvent('attractor-tab', { detail: name }));
}

// ---------------------------------------------------------------- start-up

// Every 2 s: the header's counts, the runs list, and the open run's status and (while it runs)
// its questions.
function poll() {
  refreshHealth();
  refreshRuns();
  if (!state.run) return;
  refreshRunInfo();
  if (isActive(state.run)) refreshQuestions();
}

function init() {
  $('#new-run').addEventListener('submit', startRun);
  $('#add-context').addEventListener('click', addContextRow);
  $('#dot-input').addEventListener('input', () => { $('#source-dot').checked = true; });
  $('#graph-select').addEventListener('change', () => { $('#source-graph').checked = true; });
  $('#cancel-run').addEventListener('click', () => runAction('cancel'));
  $('#resume-run').addEventListener('click', () => runAction('resume'));
  $('#graph-view').addEventListener('click', onGraphClick);
  document.addEventListener('keydown', onKeyDown);
  $('#tab-run').addEventListener('click', () => showTab('run'));
  $('#tab-editor').addEventListener('click', () => showTab('editor'));
  window.addEventListener('hashchange', () => {
    if (location.hash.startsWith('#run=')) showTab('run');
    openRunFromHash();
  });
  loadGraphs();
  refreshHealth();
  refreshRuns();
  openRunFromHash();
  setInterval(poll, 2000);
}

// What editor.js (a module, run before DOMContentLoaded) may call.
window.attractor = {
  api,
  loadGraphs,
  refreshRuns,
  showTab,
  openRun(id) {
    showTab('run');
    location.hash = 'run=' + enc(id);
    refreshRuns();
    refreshHealth();
  },
};

document.addEventListener('DOMContentLoaded', init);

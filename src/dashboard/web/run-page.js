// One run: metric panels (panels.js) that poll for new steps every 2 s, EMA smoothing, log/linear y, a
// config diff against another run, and a link to the sample browser.
import { api, el } from './api.js';
import { align, ema, lineChart } from './charts.js';
import { panelsFor } from './panels.js';

const POLL_MS = 2000;

export async function renderRun(name, params) {
  const base = `/api/runs/${encodeURIComponent(name)}`;
  document.getElementById('where').textContent = name;
  const main = document.getElementById('main');
  const state = {
    smoothing: Number(params.get('smooth') ?? 0),
    log: params.get('log') === '1',
    raw: {},
    lastStep: -1,
    keys: [],
  };
  const panelsBox = el('div', { class: 'panels', id: 'panels' });
  const diffBox = el('div', { id: 'config-diff' });

  async function loadAll() {
    const meta = await api(`${base}/keys`);
    state.keys = meta.keys;
    state.raw = {};
    state.lastStep = -1;
    if (meta.keys.length > 0) {
      const { series, lastStep } = await api(
        `${base}/series?keys=${meta.keys.map(encodeURIComponent).join(',')}`,
      );
      state.raw = series;
      state.lastStep = lastStep ?? -1;
    }
    draw();
  }

  let stopped = false;

  function draw() {
    if (stopped) return; // a poll that finished after the page was left
    panelsBox.replaceChildren();
    window.dashboard.charts = {};
    for (const [id, keys] of panelsFor(state.keys)) {
      const box = el('div', { class: 'panel', 'data-panel': id });
      panelsBox.append(box);
      const data = align(keys.map((key) => state.raw[key] ?? [[], []]));
      const smoothed = data.map((column, i) => (i === 0 ? column : ema(column, state.smoothing)));
      const labels = keys.map((key) => (keys.length > 1 ? key.split('/').slice(-1)[0] : key));
      const chart = lineChart(box, { title: id, labels, data: smoothed, log: state.log });
      window.dashboard.charts[id] = { chart, keys };
    }
    if (state.keys.length === 0) panelsBox.append(el('p', { class: 'note' }, 'no metrics logged yet'));
  }

  async function poll() {
    const meta = await api(`${base}/keys`);
    if (meta.keys.length !== state.keys.length) return loadAll();
    if (meta.lastStep === null || meta.lastStep <= state.lastStep) return;
    const { series, lastStep } = await api(
      `${base}/series?after=${state.lastStep}&keys=${state.keys.map(encodeURIComponent).join(',')}`,
    );
    for (const [key, [xs, vs]] of Object.entries(series)) {
      const raw = state.raw[key] ?? [[], []];
      state.raw[key] = [raw[0].concat(xs), raw[1].concat(vs)];
    }
    state.lastStep = lastStep ?? state.lastStep;
    draw();
    window.dashboard.updates++;
    document.getElementById('live').textContent =
      `updated to step ${state.lastStep} at ${new Date().toLocaleTimeString()}`;
  }

  const runs = (await api('/api/runs')).runs.filter(
    (run) => run.status !== 'unreadable' && run.name !== name,
  );
  const diffSelect = el(
    'select',
    {
      id: 'diff-against',
      onchange: async () => {
        if (!diffSelect.value) return diffBox.replaceChildren();
        const { diff } = await api(`${base}/config?diff=${encodeURIComponent(diffSelect.value)}`);
        diffBox.replaceChildren(
          diff.length === 0
            ? el('p', { class: 'note' }, 'configs are identical')
            : el(
                'table',
                {},
                el('tr', {}, el('th', {}, 'key'), el('th', {}, name), el('th', {}, diffSelect.value)),
                diff.map((d) =>
                  el(
                    'tr',
                    {},
                    el('td', {}, d.key),
                    el('td', {}, d.value ?? 'absent'),
                    el('td', {}, d.other ?? 'absent'),
                  ),
                ),
              ),
        );
      },
    },
    el('option', { value: '' }, '—'),
    runs.map((run) => el('option', { value: run.name }, run.name)),
  );

  const smoothing = el('input', {
    type: 'range',
    id: 'smoothing',
    min: 0,
    max: 0.99,
    step: 0.01,
    value: state.smoothing,
    oninput: () => {
      state.smoothing = Number(smoothing.value);
      draw();
    },
  });
  const logBox = el('input', {
    type: 'checkbox',
    id: 'log-y',
    checked: state.log,
    onchange: () => {
      state.log = logBox.checked;
      draw();
    },
  });
  main.replaceChildren(
    el(
      'div',
      { class: 'controls' },
      el('label', {}, 'smoothing (EMA) ', smoothing),
      el('label', {}, logBox, ' log y'),
      el('a', { href: `#/run/${encodeURIComponent(name)}/samples`, id: 'samples-link' }, 'samples'),
      el('label', {}, 'config diff against ', diffSelect),
    ),
    diffBox,
    panelsBox,
  );
  await loadAll();
  window.dashboard.page = 'run';
  let busy = false;
  const timer = setInterval(
    async () => {
      if (busy) return;
      busy = true;
      try {
        await poll();
      } catch (error) {
        document.getElementById('live').textContent = `poll failed: ${error.message}`;
      } finally {
        busy = false;
      }
    },
    Number(params.get('poll') ?? POLL_MS),
  );
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

// The runs table: status, start, wall time, steps, tokens, config summary (refreshed every 5 s); pick runs
// to compare.
import { api, el, fmt } from './api.js';

function duration(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  return h > 0
    ? `${h}h${String(m).padStart(2, '0')}m`
    : m > 0
      ? `${m}m${String(s).padStart(2, '0')}s`
      : `${s}s`;
}

const REFRESH_MS = 5000;

export async function renderRuns() {
  await drawRuns();
  // Statuses and steps move while runs train: refresh the table, keeping the ticked runs.
  const timer = setInterval(() => drawRuns().catch(() => {}), REFRESH_MS);
  return () => clearInterval(timer);
}

async function drawRuns() {
  const { runsDir, runs } = await api('/api/runs');
  if (!/^#?\/?$/.test(location.hash.split('?')[0])) return; // navigated away meanwhile
  document.getElementById('where').textContent = runsDir;
  const main = document.getElementById('main');
  const ticked = new Set([...main.querySelectorAll('input.pick:checked')].map((box) => box.value));
  const rows = runs.map((run) => {
    if (run.status === 'unreadable') {
      return el(
        'tr',
        { 'data-run': run.name },
        el('td'),
        el('td', {}, run.name),
        el('td', { class: 'status-unreadable', colspan: 7 }, `unreadable: ${run.reason}`),
      );
    }
    return el(
      'tr',
      { 'data-run': run.name },
      el(
        'td',
        {},
        el('input', { type: 'checkbox', value: run.name, class: 'pick', checked: ticked.has(run.name) }),
      ),
      el('td', {}, el('a', { href: `#/run/${encodeURIComponent(run.name)}` }, run.name)),
      el('td', { class: `status-${run.status}` }, run.status),
      el('td', {}, run.startTime ? run.startTime.replace('T', ' ').slice(0, 19) : '–'),
      el('td', { class: 'num' }, duration(run.wallSeconds)),
      el('td', { class: 'num' }, fmt(run.lastStep)),
      el('td', { class: 'num' }, fmt(run.steps)),
      el('td', { class: 'num' }, fmt(run.tokens)),
      el(
        'td',
        {},
        Object.entries(run.config)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' '),
      ),
    );
  });
  const compare = el(
    'button',
    {
      id: 'compare-selected',
      onclick: () => {
        const picked = [...main.querySelectorAll('input.pick:checked')].map((box) => box.value);
        if (picked.length > 0) location.hash = `#/compare?runs=${picked.map(encodeURIComponent).join(',')}`;
      },
    },
    'Compare selected',
  );
  main.replaceChildren(
    el(
      'div',
      { class: 'controls' },
      compare,
      el('span', { class: 'note' }, 'runs that differ only in seed are grouped, as `curricula compare` does'),
    ),
    el(
      'table',
      { id: 'runs' },
      el(
        'tr',
        {},
        ...['', 'run', 'status', 'started', 'wall', 'last step', 'steps', 'tokens', 'config'].map((h) =>
          el('th', {}, h),
        ),
      ),
      rows,
    ),
  );
  window.dashboard.page = 'runs';
}

// Compare: the chosen runs grouped by seed (as `curricula compare` does), a mean curve with a ±1 sd band
// per group for each chosen metric, and the final-value table with seed-paired deltas vs the baseline.
import { api, el, fmt } from './api.js';
import { align, color } from './charts.js';

const DEFAULT_KEYS = ['eval/pass@1', 'reward/mean'];

export async function renderCompare(params) {
  const names = (params.get('runs') ?? '').split(',').filter(Boolean);
  document.getElementById('where').textContent = `compare ${names.length} runs`;
  const main = document.getElementById('main');
  const runs = names.map(encodeURIComponent).join(',');
  const keys = params.get('keys') ? params.get('keys').split(',').filter(Boolean) : DEFAULT_KEYS;
  const baseline = params.get('baseline') ?? '';
  const view = await api(
    `/api/compare?runs=${runs}&keys=${keys.map(encodeURIComponent).join(',')}${baseline ? `&baseline=${encodeURIComponent(baseline)}` : ''}`,
  );
  const { comparison } = view;
  const baselineSelect = el(
    'select',
    {
      id: 'baseline',
      onchange: () => {
        location.hash = `#/compare?runs=${runs}&keys=${keys.join(',')}&baseline=${encodeURIComponent(baselineSelect.value)}`;
      },
    },
    el('option', { value: '' }, '—'),
    view.groups.map((g) =>
      el('option', { value: g.group, selected: g.group === comparison.baseline }, g.group),
    ),
  );
  const keysInput = el('input', { id: 'compare-keys', size: 40, value: keys.join(',') });
  const apply = el(
    'button',
    {
      onclick: () => {
        location.hash = `#/compare?runs=${runs}&keys=${encodeURIComponent(keysInput.value)}${baseline ? `&baseline=${encodeURIComponent(baseline)}` : ''}`;
      },
    },
    'show',
  );
  const panels = el('div', { class: 'panels' });
  main.replaceChildren(
    el(
      'div',
      { class: 'controls' },
      el('span', {}, `grouped by: ${view.groupedBy.join(', ') || '(identical configs)'}`),
      el('label', {}, 'baseline ', baselineSelect),
      el('label', {}, 'metrics ', keysInput),
      apply,
    ),
    panels,
    finalTable(comparison),
  );
  for (const key of keys) {
    const columns = [];
    const series = [];
    const bands = [];
    view.groups.forEach((group, g) => {
      const [steps, mean, lo, hi] = group.curves[key] ?? [[], [], [], []];
      const base = columns.length;
      columns.push([steps, mean], [steps, lo], [steps, hi]);
      series.push(
        { label: `${group.group} (n=${group.runs.length})`, stroke: color(g), width: 2 },
        { label: '−sd', stroke: `${color(g)}55`, show: true },
        { label: '+sd', stroke: `${color(g)}55` },
      );
      bands.push({ series: [base + 3, base + 2], fill: `${color(g)}22` });
    });
    const box = el('div', { class: 'panel', 'data-panel': key });
    panels.append(box);
    const data = align(columns);
    const chart = new uPlot(
      {
        title: `${key}: mean ± sd`,
        width: 520,
        height: 260,
        scales: { x: { time: false } },
        series: [{ label: 'step' }, ...series.map((s) => ({ ...s, spanGaps: true }))],
        bands,
      },
      data,
      box,
    );
    window.dashboard.charts[key] = { chart, keys: [key] };
  }
  window.dashboard.page = 'compare';
}

function finalTable(comparison) {
  const keys = comparison.keys;
  return el(
    'div',
    {},
    el(
      'h3',
      {},
      `final values (mean ± sd over seeds); paired Δ of ${comparison.headline} vs ${comparison.baseline ?? '— (choose a baseline)'}`,
    ),
    el(
      'table',
      { id: 'final' },
      el(
        'tr',
        {},
        el('th', {}, 'group'),
        el('th', {}, 'runs'),
        keys.map((k) => el('th', {}, k)),
        el('th', {}, `paired Δ ${comparison.headline}`),
      ),
      comparison.groups.map((g) =>
        el(
          'tr',
          { 'data-group': g.group },
          el('td', {}, g.group),
          el('td', {}, g.runs.join(', ')),
          keys.map((k) =>
            el(
              'td',
              { class: 'num' },
              g.final[k] ? `${fmt(g.final[k].mean, 3)} ± ${fmt(g.final[k].sd, 2)}` : '–',
            ),
          ),
          el(
            'td',
            { class: 'num' },
            g.pairedDelta
              ? `${fmt(g.pairedDelta.mean, 3)} ± ${fmt(g.pairedDelta.sd, 2)} (n=${g.pairedDelta.n})`
              : '–',
          ),
        ),
      ),
    ),
  );
}

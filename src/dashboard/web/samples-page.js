// The sample browser: pick a step (one with logged samples), see its reward histogram (click a bar to keep
// only completions in that reward range) and each problem's group side by side: the prompt, then every
// completion with its reward, grading reason, stored advantage, per-token log-probs as colour and guidance
// (sample-view.js), an episode's turn by turn (episode-view.js). Filters: task, level, reward range.
import { api, el, fmt } from './api.js';
import { barChart } from './charts.js';
import { episodeLegend } from './episode-view.js';
import { completionCard, groupHeader, logprobLegend } from './sample-view.js';

export async function renderSamples(name, params) {
  const base = `/api/runs/${encodeURIComponent(name)}`;
  document.getElementById('where').textContent = `${name} · samples`;
  const main = document.getElementById('main');
  const { sampleSteps } = await api(`${base}/keys`);
  if (sampleSteps.length === 0) {
    main.replaceChildren(el('p', { class: 'note' }, 'this run logged no samples'));
    window.dashboard.page = 'samples';
    return;
  }
  const step = params.has('step') ? Number(params.get('step')) : sampleSteps[sampleSteps.length - 1];
  const [{ groups }, histogram] = await Promise.all([
    api(`${base}/samples?step=${step}`),
    api(`${base}/histogram?step=${step}`),
  ]);
  const filter = { task: '', level: '', lo: null, hi: null };
  const tasks = [...new Set(groups.map((g) => g.task).filter(Boolean))].sort();
  const levels = [...new Set(groups.map((g) => g.level).filter(Boolean))].sort((a, b) => a - b);
  const list = el('div', { id: 'groups' });

  function inRange(reward) {
    if (filter.lo === null) return true;
    const last = filter.hi >= histogram.edges[histogram.edges.length - 1];
    return reward >= filter.lo && (reward < filter.hi || (last && reward <= filter.hi));
  }

  function render() {
    list.replaceChildren();
    for (const group of groups) {
      if (filter.task && group.task !== filter.task) continue;
      if (filter.level && group.level !== filter.level) continue;
      const shown = group.completions.filter((c) => inRange(c.reward));
      if (shown.length === 0) continue;
      list.append(
        el(
          'details',
          { class: 'group', 'data-problem': group.problemId },
          el(
            'summary',
            {},
            `${group.problemId} · ${group.completions.length} completions · mean reward ${fmt(group.meanReward, 3)}`,
          ),
          groupHeader(group),
          el('div', { class: 'completions' }, shown.map(completionCard)),
        ),
      );
    }
    if (list.children.length === 0) list.append(el('p', { class: 'note' }, 'no samples match the filters'));
  }

  const stepSelect = el(
    'select',
    {
      id: 'step',
      onchange: () => {
        location.hash = `#/run/${encodeURIComponent(name)}/samples?step=${stepSelect.value}`;
      },
    },
    sampleSteps.map((s) => el('option', { value: s, selected: s === step }, s)),
  );
  const taskSelect = el(
    'select',
    {
      id: 'task',
      onchange: () => {
        filter.task = taskSelect.value;
        render();
      },
    },
    el('option', { value: '' }, 'all'),
    tasks.map((t) => el('option', { value: t }, t)),
  );
  const levelSelect = el(
    'select',
    {
      id: 'level',
      onchange: () => {
        filter.level = levelSelect.value;
        render();
      },
    },
    el('option', { value: '' }, 'all'),
    levels.map((l) => el('option', { value: l }, l)),
  );
  const rangeNote = el('span', { id: 'reward-range', class: 'note' }, 'click a bar to filter by reward');
  const clear = el(
    'button',
    {
      onclick: () => {
        filter.lo = filter.hi = null;
        rangeNote.textContent = 'all rewards';
        render();
      },
    },
    'all rewards',
  );
  const histBox = el('div', { class: 'panel', id: 'histogram' });
  main.replaceChildren(
    el(
      'div',
      { class: 'controls' },
      el('a', { href: `#/run/${encodeURIComponent(name)}` }, '← curves'),
      el('label', {}, 'step ', stepSelect),
      el('label', {}, 'task ', taskSelect),
      el('label', {}, 'level ', levelSelect),
      clear,
      rangeNote,
    ),
    histBox,
    groups.some((group) => group.completions.some((c) => c.tokens)) ? logprobLegend() : null,
    groups.some((group) => group.completions.some((c) => c.episode)) ? episodeLegend() : null,
    list,
  );
  const chart = barChart(histBox, {
    title: `reward histogram, step ${step} (${histogram.total} samples)`,
    edges: histogram.edges,
    counts: histogram.counts,
    onBin: (lo, hi) => {
      filter.lo = lo;
      filter.hi = hi;
      rangeNote.textContent = `reward in [${fmt(lo, 3)}, ${fmt(hi, 3)}]`;
      render();
    },
  });
  window.dashboard.charts.histogram = { chart, keys: [] };
  render();
  window.dashboard.page = 'samples';
}

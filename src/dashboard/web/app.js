// The dashboard's router: #/ runs table, #/run/<name> metric panels, #/run/<name>/samples?step=N sample
// browser, #/compare?runs=a,b compare view. Each page module renders into <main> and returns a cleanup
// function (stops live polling). `window.dashboard` exposes the live charts to the browser test.
import { el } from './api.js';
import { renderCompare } from './compare-page.js';
import { renderRun } from './run-page.js';
import { renderRuns } from './runs-page.js';
import { renderSamples } from './samples-page.js';

window.dashboard = { charts: {}, page: null, updates: 0 };
let cleanup = null;

const routes = [
  [/^#\/run\/([^/?]+)\/samples$/, (m, params) => renderSamples(decodeURIComponent(m[1]), params)],
  [/^#\/run\/([^/?]+)$/, (m, params) => renderRun(decodeURIComponent(m[1]), params)],
  [/^#\/compare$/, (_m, params) => renderCompare(params)],
  [/^#?\/?$/, () => renderRuns()],
];

async function route() {
  if (cleanup) cleanup();
  cleanup = null;
  window.dashboard.charts = {};
  window.dashboard.page = null;
  document.getElementById('live').textContent = '';
  const main = document.getElementById('main');
  main.replaceChildren('loading…');
  const [path, query = ''] = location.hash.split('?');
  const params = new URLSearchParams(query);
  for (const [pattern, render] of routes) {
    const match = pattern.exec(path);
    if (!match) continue;
    try {
      cleanup = (await render(match, params)) ?? null;
    } catch (error) {
      main.replaceChildren(el('p', { class: 'error' }, String(error.message ?? error)));
      window.dashboard.page = 'error';
    }
    return;
  }
  main.replaceChildren(el('p', { class: 'error' }, `no page ${path}`));
}

window.addEventListener('hashchange', route);
route();

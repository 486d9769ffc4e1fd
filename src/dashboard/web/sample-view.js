// One completion of the sample browser, and the guidance of its group, as DOM (every stored text goes in
// as a text node, never as HTML):
// - the advantage the loss used, as stored (the run store's `advantage`; "not trained" when null); a run
//   made before the store kept it shows "reward − group mean (computed)" instead;
// - the completion token by token, each token's background coloured by its sampler probability
//   p = exp(log p) on a red (p = 0) → green (p = 1) scale (logprobLegend), its title (hover) giving the
//   token and its log-prob; expert-trace tokens are underlined; a forced prefix is shown apart, before them;
// - the guidance set apart from the prompt: the scaffold's name, each text it added with its kind, and
//   badges for guided / expert / retry completions;
// - a completion sampled as a multi-turn episode turn by turn instead (episode-view.js).
import { el, fmt } from './api.js';
import { episodeView } from './episode-view.js';
import { logprobColour, tokenSpan } from './tokens.js';

const LEGEND_P = [1, 0.75, 0.5, 0.25, 0.05];

export function logprobLegend() {
  return el(
    'div',
    { class: 'legend', id: 'logprob-legend' },
    'token colour = sampler probability: ',
    LEGEND_P.map((p) =>
      el(
        'span',
        { class: 'tok', style: `background:${logprobColour(Math.log(p))}` },
        `p ${p} (log p ${fmt(Math.log(p), 2)})`,
      ),
    ),
    ' · hover a token for its log-prob; underlined tokens come from an expert trace',
  );
}

const KIND_LABEL = {
  prompt: 'added to the prompt',
  prefix: 'forced prefix',
  'member-prompt': "this completion's prompt",
  'retry-prompt': 'retry prompt',
  privileged: 'scorer-only context',
};

function guidanceBlock(scaffold, entries) {
  if (entries.length === 0) return null;
  return el(
    'div',
    { class: 'guidance' },
    el('div', { class: 'note' }, `guidance · ${scaffold ?? 'scaffold'}`),
    entries.map((entry) =>
      el(
        'div',
        { class: 'guidance-text', 'data-kind': entry.kind },
        el('span', { class: 'note' }, `${KIND_LABEL[entry.kind] ?? entry.kind}: `),
        el('pre', {}, entry.text),
      ),
    ),
  );
}

const GROUP_KINDS = new Set(['prompt', 'prefix', 'privileged']);

/** The group's plain prompt, then the guidance shared by its attempt (from its first completion). */
export function groupHeader(group) {
  const first = group.completions[0] ?? {};
  const guidance = first.guidance;
  const prompt = guidance?.plainPrompt ?? group.prompt;
  return [
    el('div', { class: 'prompt' }, prompt),
    guidanceBlock(
      first.scaffold,
      (guidance?.added ?? []).filter((entry) => GROUP_KINDS.has(entry.kind)),
    ),
  ];
}

function advantageLine(c) {
  if (c.advantage === undefined) {
    return `reward ${fmt(c.reward, 3)} · reward − group mean ${fmt(c.centeredReward, 3)} (computed)`;
  }
  if (c.advantage === null) return `reward ${fmt(c.reward, 3)} · advantage – (not trained)`;
  const kind = c.advantageKind === 'token-mean' ? ' (token mean)' : '';
  return `reward ${fmt(c.reward, 3)} · advantage${kind} ${fmt(c.advantage, 3)}`;
}

function tokenText(c) {
  const prefix = (c.guidance?.added ?? []).find((entry) => entry.kind === 'prefix')?.text ?? '';
  const expert = c.guidance?.expertTokens ?? 0;
  return el(
    'pre',
    { class: 'tokens' },
    prefix ? el('span', { class: 'forced', title: 'forced prefix (not sampled)' }, prefix) : null,
    c.tokens.map((piece, index) => tokenSpan(piece, c.logprobs?.[index], index < expert ? 'expert-tok' : '')),
  );
}

export function completionCard(c) {
  const badges = ['guided', 'expert', 'retry'].filter((flag) => c[flag]);
  return el(
    'div',
    { class: `completion ${c.reward > 0 ? 'reward-good' : 'reward-bad'}` },
    el('div', { class: 'advantage' }, advantageLine(c)),
    badges.length > 0
      ? el(
          'div',
          {},
          badges.map((flag) => el('span', { class: `badge badge-${flag}` }, flag)),
        )
      : null,
    c.reason ? el('div', { class: 'note' }, c.reason) : null,
    guidanceBlock(
      c.scaffold,
      (c.guidance?.added ?? []).filter((entry) => !GROUP_KINDS.has(entry.kind)),
    ),
    c.episode ? episodeView(c) : c.tokens ? tokenText(c) : el('pre', {}, c.completion),
  );
}

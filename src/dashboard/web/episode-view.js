// A completion sampled as a multi-turn episode (rollout.environment), turn by turn, as DOM (every stored
// text goes in as a text node, never as HTML). Per turn: a header with the turn's reward (from the
// environment), how its sampling stopped and, cut or not, the output's length; the turn's error, if any;
// then its tokens — the policy's, coloured by sampler probability (tokens.js), with the tool call that ended
// the turn outlined (`<name …>…</name>` closing a turn that stopped on a stop string), and the tool output
// the environment wrote after it shaded grey: those tokens were not sampled and are masked from the loss
// (their stored log-prob 0 is no probability, so they get no colour).
// Last, how the episode ended and its error counts. Spans come from the run store's `episode` column
// (src/runs/sample-columns.ts: [start, end) indices into the completion's tokens), clamped to the stored
// tokens, which stop after MAX_TOKENS; a run that did not store tokens shows the turns' lines and the text.
import { el, fmt } from './api.js';
import { tokenSpan } from './tokens.js';

const MASKED = 'tool output: written by the environment, not sampled, masked from the loss';

/** The legend of the episode view, shown above the groups when a step has an episode. */
export function episodeLegend() {
  return el(
    'div',
    { class: 'legend', id: 'episode-legend' },
    'episodes: ',
    el('span', { class: 'tool-call' }, el('span', { class: 'tok' }, 'tool call')),
    ' sampled by the policy (trained) · ',
    el(
      'span',
      { class: 'tool-output', title: MASKED },
      el('span', { class: 'tok masked-tok' }, 'tool output'),
    ),
    ' written by the environment, masked from the loss (no log-prob) · reward per turn from the environment',
  );
}

const STOP_LABEL = { eos: 'stopped at eos', stop: 'tool call', length: 'hit the token limit' };

const END_LABEL = {
  done: 'done (the environment ended it)',
  max_turns: 'max turns reached',
  max_tokens: 'token budget full',
  parse_error: 'malformed tool call',
  environment_error: 'environment error',
};

/** Index of the first piece of the tool call that ends `pieces` (`<name …>…</name>`); length if none. */
function callStart(pieces, stopReason) {
  if (stopReason !== 'stop') return pieces.length;
  const text = pieces.join('');
  const close = /<\/([A-Za-z_][\w.-]*)>\s*$/.exec(text);
  if (!close) return pieces.length;
  const open = text.lastIndexOf(`<${close[1]}`, close.index);
  const from = open < 0 ? close.index : open;
  let offset = 0;
  for (const [index, piece] of pieces.entries()) {
    offset += piece.length;
    if (offset > from) return index;
  }
  return pieces.length;
}

function turnLine(turn, index) {
  const [start, end] = turn.output;
  const cut =
    turn.outputTokensBefore > end - start
      ? ` · output cut from ${turn.outputTokensBefore} to ${end - start} tokens`
      : '';
  const stop = STOP_LABEL[turn.stopReason] ?? turn.stopReason;
  return `turn ${index + 1} · reward ${fmt(turn.reward, 3)} · ${stop}${cut}`;
}

/** The turn's tokens: the policy's (tool call outlined), then the shaded tool output. */
function turnTokens(c, turn) {
  const n = c.tokens.length;
  const clamp = ([a, b]) => [Math.min(a, n), Math.min(Math.max(a, b), n)];
  const [actionStart, actionEnd] = clamp(turn.action);
  const [outputStart, outputEnd] = clamp(turn.output);
  const pieces = c.tokens.slice(actionStart, actionEnd);
  const call = callStart(pieces, turn.stopReason);
  const output = c.tokens.slice(outputStart, outputEnd);
  return el(
    'pre',
    { class: 'tokens' },
    pieces.slice(0, call).map((piece, k) => tokenSpan(piece, c.logprobs?.[actionStart + k])),
    call < pieces.length
      ? el(
          'span',
          { class: 'tool-call', title: 'tool call (sampled by the policy)' },
          pieces.slice(call).map((piece, k) => tokenSpan(piece, c.logprobs?.[actionStart + call + k])),
        )
      : null,
    output.length > 0
      ? el(
          'span',
          { class: 'tool-output', title: MASKED },
          output.map((piece) =>
            el(
              'span',
              { class: 'tok masked-tok', title: `${JSON.stringify(piece)} ${MASKED}` },
              piece === '' ? '∅' : piece,
            ),
          ),
        )
      : null,
  );
}

function endLine(episode) {
  const counts = Object.entries(episode.errors ?? {})
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  return [
    `episode end: ${END_LABEL[episode.end] ?? episode.end}`,
    episode.environmentError ? ` (${episode.environmentError})` : '',
    ` · ${episode.turns.length} turn${episode.turns.length === 1 ? '' : 's'}`,
    counts.length > 0 ? ` · errors: ${counts.join(', ')}` : ' · no errors',
  ].join('');
}

/** The episode of completion `c` (c.episode, c.tokens, c.logprobs), turn by turn. */
export function episodeView(c) {
  const { episode } = c;
  return el(
    'div',
    { class: 'episode' },
    episode.turns.map((turn, index) =>
      el(
        'div',
        { class: 'turn', 'data-turn': index + 1 },
        el('div', { class: 'turn-head' }, turnLine(turn, index)),
        turn.error
          ? el('div', { class: 'turn-error' }, `${turn.error.kind} error: ${turn.error.message}`)
          : null,
        c.tokens ? turnTokens(c, turn) : null,
      ),
    ),
    c.tokens ? null : el('pre', {}, c.completion),
    el('div', { class: 'episode-end' }, endLine(episode)),
  );
}

// One stored completion token as DOM (a text node inside a span, never HTML): its background is its
// sampler probability p = exp(log p) on a red (p = 0) → green (p = 1) scale, its title (hover) the token
// and its log-prob. Shared by the single-turn view (sample-view.js) and the episode view (episode-view.js).
import { el, fmt } from './api.js';

/** Background colour of a token of log-prob `logprob`. */
export function logprobColour(logprob) {
  const p = Number.isFinite(logprob) ? Math.min(1, Math.max(0, Math.exp(logprob))) : 0;
  return `hsl(${Math.round(120 * p)}, 70%, 82%)`;
}

/** A sampled token: coloured by its log-prob; `className` adds e.g. expert-tok or tool-call. */
export function tokenSpan(piece, logprob, className = '') {
  return el(
    'span',
    {
      class: className ? `tok ${className}` : 'tok',
      style: `background:${logprobColour(logprob)}`,
      title: `${JSON.stringify(piece)} log p = ${fmt(logprob, 4)}`,
      'data-logprob': logprob,
    },
    piece === '' ? '∅' : piece,
  );
}

// String normalisation of an extracted answer before parsing, after latex2sympy2_extended's
// `normalize_latex` (used by Math-Verify v0.8.0) and the Hendrycks/Minerva `strip_string` family:
// math delimiters, \left/\right, \!, spacing commands, \dfrac/\tfrac/\cfrac, \text{}/\mathrm{}/\mbox{}
// unwrapping, unit words, currency, percent (flagged, not divided: see compare.ts), degrees (removed —
// compute-engine would read ^\circ as radians), thousands separators, and 'and'/'or' between items (→ ',').
// Deviations: single-letter units (m, g, s, h) are removed only inside \text{}/\mathrm{}/\mbox{} (bare, they
// are more often variables); no "malformed operator" repair beyond what compute-engine parses itself
// (\frac12, \sqrt2 parse fine); decimal commas (`2,75`, `0,125`) are rewritten only on request (when the
// other side is a single decimal number, see verify.ts), never by default, since `1,2` is also a list.
// Also: `[\begin{array}…\end{array}]` is the matrix itself; a labelled ratio `V_1:V_2 = 11:21` is its value;
// a trailing ellipsis (`1, 2, 3, ...`) is kept, so an unfinished list never equals a finished one.

export interface Normalized {
  /** Normalised LaTeX, ready for parsing. */
  latex: string;
  /** The answer carried a percent marker (\%, %, 'percent', 'percentage', 'pct'), which was removed. */
  percent: boolean;
  /** The whole answer was text (\text{odd}, 'Evelyn') rather than mathematics. */
  textual: boolean;
}

export interface NormalizeOptions {
  /** Read '3,5' as 3.5 (only for a bare number with one comma not followed by exactly three digits). */
  decimalComma?: boolean;
}

const UNIT_WORDS = [
  // length, area, volume
  'millimeters?',
  'millimetres?',
  'centimeters?',
  'centimetres?',
  'meters?',
  'metres?',
  'kilometers?',
  'kilometres?',
  'mm',
  'cm',
  'km',
  'inch(?:es)?',
  'in',
  'ft',
  'foot',
  'feet',
  'yards?',
  'yd',
  'miles?',
  'mi',
  'liters?',
  'litres?',
  'ml',
  'mL',
  'gallons?',
  'quarts?',
  'pints?',
  'cups?',
  // mass
  'grams?',
  'kilograms?',
  'kg',
  'mg',
  'lbs?',
  'pounds?',
  'ounces?',
  'oz',
  'tons?',
  // time
  'seconds?',
  'secs?',
  'minutes?',
  'mins?',
  'hours?',
  'hrs?',
  'days?',
  'weeks?',
  'months?',
  'years?',
  // speed and rates
  'mph',
  'km/h',
  'kmh',
  'm/s',
  'meters per second',
  'miles per hour',
  // money
  'dollars?',
  'cents?',
  'yuan',
  'euros?',
  'USD',
  // angles
  'degrees?',
  'radians?',
  // counts and generic
  'units?',
  'square units?',
  'sq units?',
  'cubic units?',
  'square (?:centimeters?|meters?|inches|feet|units?|cm|m|km|ft|in)',
  'cubic (?:centimeters?|meters?|inches|feet|units?|cm|m|ft|in)',
  'sq\\.? ?(?:ft|in|cm|m|units?)',
  'people',
  'persons?',
  'students?',
  'ways',
  'points?',
  'times',
  'items?',
  'pieces?',
  'marbles?',
  'apples?',
  'books?',
  'coins?',
  'balls?',
  'cars?',
  'pages?',
  'hats?',
  'numbers?',
  'integers?',
  'digits?',
  'terms?',
  'steps?',
  'moves?',
  'games?',
  'boxes?',
  'cookies?',
  'candies?',
  'handshakes?',
  'outfits?',
  'committees?',
  'arrangements?',
  'triangles?',
  'squares?',
  'rectangles?',
  'sides?',
  'diagonals?',
  'edges?',
  'vertices?',
  'faces?',
  'meals?',
];
const SINGLE_LETTER_UNITS = [
  'm',
  'g',
  's',
  'h',
  'l',
  'L',
  'min',
  'hr',
  'sec',
  'd',
  'cm',
  'km',
  'mm',
  'kg',
  'ft',
  'in',
];

const unitAlternation = UNIT_WORDS.join('|');
/** A whole \text{…} content that is only a unit (plus optional 'of', '.' and superscripts). */
const UNIT_TEXT = new RegExp(
  `^\\s*(?:${unitAlternation}|${SINGLE_LETTER_UNITS.join('|')})(?:\\s*(?:\\^\\{?\\d\\}?|\\d))?\\s*\\.?\\s*$`,
  'i',
);
/** A bare unit word at the end of the answer, after a digit, '}' or ')' and optional space. */
const TRAILING_UNIT = new RegExp(
  `(?<=[\\d})\\s])\\s*(?:${unitAlternation})(?:\\s*\\^\\s*\\{?\\d\\}?)?\\s*\\.?\\s*$`,
);

const TEXT_COMMANDS =
  /\\(?:text|textbf|textit|textrm|textnormal|textsf|texttt|mathrm|mathbf|mathit|mathsf|mbox|hbox)\s*\{/g;

/** Replaces each \text{…}-like group through `replace(content)`, brace-matched. */
function replaceTextGroups(text: string, replace: (content: string) => string): string {
  let result = '';
  let last = 0;
  TEXT_COMMANDS.lastIndex = 0;
  for (;;) {
    const match = TEXT_COMMANDS.exec(text);
    if (!match) break;
    const open = match.index + match[0].length - 1;
    let depth = 0;
    let end = text.length;
    for (let i = open; i < text.length; i++) {
      if (text[i] === '\\') {
        i++;
        continue;
      }
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        end = i;
        break;
      }
    }
    result += text.slice(last, match.index) + replace(text.slice(open + 1, end));
    last = Math.min(end + 1, text.length);
    TEXT_COMMANDS.lastIndex = last;
  }
  return result + text.slice(last);
}

function stripDelimiters(text: string): string {
  for (;;) {
    const before = text;
    text = text.trim();
    for (const [open, close] of [
      ['$$', '$$'],
      ['$', '$'],
      ['\\[', '\\]'],
      ['\\(', '\\)'],
    ]) {
      if (text.startsWith(open) && text.endsWith(close) && text.length >= open.length + close.length) {
        text = text.slice(open.length, text.length - close.length);
      }
    }
    if (text === before) return text;
  }
}

const UNICODE: [RegExp, string][] = [
  [/[−–—]/g, '-'],
  [/×/g, '\\times '],
  [/÷/g, '\\div '],
  [/≤/g, '\\le '],
  [/≥/g, '\\ge '],
  [/≠/g, '\\ne '],
  [/π/g, '\\pi '],
  [/∞/g, '\\infty '],
  [/√/g, '\\sqrt'],
  [/°/g, '^\\circ'],
  [/∪/g, '\\cup '],
  [/·/g, '\\cdot '],
  [/±/g, '\\pm '],
];

/** Normalises an extracted answer (or a gold answer) into LaTeX that compute-engine parses predictably. */
export function normalizeAnswer(raw: string, options: NormalizeOptions = {}): Normalized {
  let s = raw;
  for (const [pattern, replacement] of UNICODE) s = s.replace(pattern, replacement);
  s = s.replace(/\\\$/g, ' '); // currency
  s = stripDelimiters(s);
  s = s.replace(/\$/g, ' ');
  s = s.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|biggl|biggr)(?![a-zA-Z])\s*/g, '');
  s = s.replace(/\\(?:displaystyle|textstyle|limits)(?![a-zA-Z])/g, '');
  // A matrix written as [\begin{array}{cc} … \end{array}] (after \left/\right went): the brackets are its own.
  s = s.replace(/[[(]\s*(\\begin\{array\}[\s\S]*?\\end\{array\})\s*[\])]/g, '$1');
  // A labelled ratio 'V_1:V_2 = 11:21' is its value.
  s = s.replace(/^\s*[A-Za-z](?:_\{?\w+\}?)?(?:\s*:\s*[A-Za-z](?:_\{?\w+\}?)?)+\s*=(?=[^=]*$)/, '');
  s = s.replace(/(\d),\\!\s*(?=\d{3}(?!\d))/g, '$1').replace(/\\!/g, ''); // 11,\!111 is a thousands separator
  s = s.replace(/\\[dtc]frac(?![a-zA-Z])/g, '\\frac').replace(/\\[dt]binom(?![a-zA-Z])/g, '\\binom');
  s = s.replace(/\\(?:leqslant|leq)(?![a-zA-Z])/g, '\\le').replace(/\\(?:geqslant|geq)(?![a-zA-Z])/g, '\\ge');
  s = s.replace(/\\neq(?![a-zA-Z])/g, '\\ne');
  // 'x \approx 3.14': the approximate value is the answer.
  if (/\\approx(?![a-zA-Z])/.test(s)) s = s.split(/\\approx(?![a-zA-Z])/).pop() ?? s;
  s = s.replace(/<=/g, '\\le ').replace(/>=/g, '\\ge ').replace(/!=/g, '\\ne ');
  // Thousands separators that cannot be a list: 1{,}234 (also spaced, `14 {, }916`) and 1\,234 (thin space
  // between digit groups).
  s = s.replace(/(\d)\s*\{\s*,\s*\}\s*(?=\d{3})/g, '$1').replace(/(\d)\\,(?=\d{3}(?!\d))/g, '$1');
  // Degrees: ^\circ, ^{\circ}, \degree and the word 'degrees' go; compute-engine would turn 90^\circ into π/2.
  // Inside trig functions degrees mean an angle: \sin 30^\circ → \sin(\frac{30\pi}{180}).
  s = s.replace(
    /\\(sin|cos|tan|sec|csc|cot)\s*(?:\(\s*)?(\d+(?:\.\d+)?)\s*\^\s*\{?\s*\\circ\s*\}?(?:\s*\))?/g,
    (_, trig, degrees) => `\\${trig}(\\frac{${degrees}\\pi}{180})`,
  );
  s = s.replace(/(?:\^\s*\{?\s*\\circ\s*\}?)\s*(?:\\(?:text|mathrm)\s*\{\s*[CF]\s*\}|[CF](?![a-zA-Z]))/g, ''); // 45^\circ C
  s = s.replace(/\^\s*\{?\s*\\circ\s*\}?/g, '').replace(/\\(?:degree|circ)(?![a-zA-Z])/g, '');
  // Percent: flag and drop.
  let percent = false;
  s = s.replace(/\\%|%|\\text\{\s*(?:percent(?:age)?|pct)\s*\}|\b(?:percent(?:age)?|pct)\b/gi, () => {
    percent = true;
    return ' ';
  });
  // Text wrappers: unit-only groups vanish (with a following ^2); others are unwrapped.
  const trimmed = s.trim();
  const wholeText = /^\\(?:text|textbf|textit|textrm|mbox|mathrm)\s*\{[^{}]*\}$/.test(trimmed);
  s = replaceTextGroups(s, (content) => (UNIT_TEXT.test(content) ? ' \uE000' : ` ${content} `));
  s = s.replace(/\s*\uE000\s*(?:\^\s*\{?\d\}?)?/g, ' ');
  s = s.replace(/\\(?:mathbf|boldsymbol|mathit)\s*\{([^{}]*)\}/g, '$1');
  s = s.replace(/(?<!\\)\\(?:,|;|:|quad|qquad|enspace|thinspace| )/g, ' ').replace(/~/g, ' ');
  // Bare trailing unit words after a number (repeated: '5 square feet', '3 cm^2').
  for (let i = 0; i < 3; i++) {
    const next = s.replace(TRAILING_UNIT, '');
    if (next === s) break;
    s = next;
  }
  // 'and'/'or' between items read as list separators (anti-hacking counts the items later).
  s = s.replace(/\s*(?:,\s*)?\b(?:and|or)\b\s*/g, ', ');
  s = s.replace(/\binfinity\b/gi, '\\infty').replace(/\+\s*\\infty/g, '\\infty');
  s = s.replace(/\s+/g, ' ').trim();
  // A list ending in an ellipsis ('1, 2, 3, ...') is unfinished: keep the ellipsis (it does not parse).
  s = s.replace(/(?:\.\.\.|\\[lc]?dots)\s*\.?$/, ' \\ldots');
  s = s.replace(/(?<!\\ldots)[.,;:\s]+$/, '').replace(/^[,;:\s]+/, '');
  s = s.replace(/(^|[^\d])\.(\d)/g, '$10.$2'); // .5 → 0.5
  // Thousands separators with plain commas only where a list reading is implausible: the whole answer is
  // one such number (or an assignment to one), e.g. 1,234 or 1,234,567.89 — but '32, 349' stays a list.
  s = s.replace(
    /^((?:[a-zA-Z]\s*=\s*)?-?)([1-9]\d{0,2}(?:,\d{3})+)(\.\d+)?$/,
    (_, prefix, digits, fraction = '') => {
      return `${prefix}${digits.replace(/,/g, '')}${fraction}`;
    },
  );
  // Space-separated thousands: '1 234 567'.
  s = s.replace(/^(-?)(\d{1,3}(?: \d{3})+)(\.\d+)?$/, (_, sign, digits, fraction = '') => {
    return `${sign}${digits.replace(/ /g, '')}${fraction}`;
  });
  if (options.decimalComma) s = s.replace(/^(-?0),(\d+)$|^(-?\d+),(\d{1,2}|\d{4,})$/, '$1$3.$2$4');
  const textual = (wholeText && /[a-zA-Z]{2,}/.test(s) && !/\\/.test(s)) || isWordAnswer(s);
  return { latex: s, percent, textual };
}

const MATH_WORDS = new Set([
  'sin',
  'cos',
  'tan',
  'sec',
  'csc',
  'cot',
  'log',
  'ln',
  'exp',
  'lim',
  'max',
  'min',
]);

/** A plain word or phrase ('Evelyn', 'odd', 'no solution'), not a product of single-letter variables. */
function isWordAnswer(text: string): boolean {
  // Letters, with single spaces, hyphens or apostrophes inside a phrase ('no solution', 'x-intercept');
  // 'x - x' (spaced minus) is mathematics.
  if (!/^[A-Za-z]+(?:(?: |-|')[A-Za-z]+)*$/.test(text)) return false;
  const words = text.split(/[ '-]/);
  if (words.some((word) => MATH_WORDS.has(word.toLowerCase()))) return false;
  // A word of three or more letters with a vowel reads as text ('odd', 'Evelyn'); 'xy', 'ab' are products.
  return words.some((word) => word.length >= 3 && /[aeiouy]/i.test(word));
}

// Progress reporting for long commands, on stderr so that stdout stays clean for tables and --json.
// On a terminal: a cli-progress bar with live metrics. Elsewhere (CI logs, pipes): one line per 10%.
// Both show the same timing: time so far, rate and time left, e.g. `train 30/100 (36s, 1.2 s/step, ~84s left)`.
import cliProgress from 'cli-progress';

export interface Progress {
  update(value: number, info?: Record<string, string | number>): void;
  /** A line above the bar (eval results, checkpoint notices). */
  log(message: string): void;
  stop(): void;
}

export interface ProgressOptions {
  /** No output at all (tests, --quiet). */
  quiet?: boolean;
  stream?: NodeJS.WriteStream;
  /** What one unit of progress is, for the rate: `1.2 s/step` or `3.4 steps/s` (default 'step'). */
  unit?: string;
  /** The clock in milliseconds (default Date.now; tests inject one). */
  now?: () => number;
}

export function createProgress(label: string, total: number, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (options.quiet) return { update() {}, log() {}, stop() {} };
  const timing = createTiming(total, options.unit ?? 'step', options.now ?? Date.now);
  const formatInfo = (info?: Record<string, string | number>) =>
    info
      ? Object.entries(info)
          .map(([key, value]) => `${key} ${typeof value === 'number' ? formatNumber(value) : value}`)
          .join('  ')
      : '';
  if (!stream.isTTY) {
    let nextMark = 0;
    return {
      update(value, info) {
        const times = timing(value);
        if (value < nextMark && value !== total) return;
        nextMark = value + Math.max(1, Math.ceil(total / 10));
        const line = [`${label} ${value}/${total} (${times})`, formatInfo(info)].filter(Boolean).join(' ');
        stream.write(`${line}\n`);
      },
      log(message) {
        stream.write(`${message}\n`);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {value}/{total} | {timing} | {info}`,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  // Not timing(0): the first update anchors the rate, and a resumed run's first update is not 0.
  bar.start(total, 0, { timing: '0s', info: '' });
  return {
    update(value, info) {
      bar.update(value, { timing: timing(value), info: formatInfo(info) });
    },
    log(message) {
      // Write above the bar: clear the line, print, redraw.
      stream.write(`\r\x1b[K${message}\n`);
      bar.render();
    },
    stop() {
      bar.stop();
    },
  };
}

/**
 * Returns `value → "36s, 1.2 s/step, ~84s left"`, to be called on every update. The rate counts from the first update, not from 0: a resumed run's first update is its
 * checkpoint's step, and what comes before a fresh run's first step (loading, the initial eval) is not
 * a cost every step pays. Until a second update there is no rate, so only the time so far.
 */
function createTiming(total: number, unit: string, now: () => number): (value: number) => string {
  const start = now();
  let anchor: { value: number; time: number } | undefined;
  return (value) => {
    const time = now();
    anchor ??= { value, time };
    const parts = [formatDuration((time - start) / 1000)];
    if (value > anchor.value && time > anchor.time) {
      const secondsPerUnit = (time - anchor.time) / 1000 / (value - anchor.value);
      parts.push(formatRate(secondsPerUnit, unit));
      if (value < total) parts.push(`~${formatDuration(secondsPerUnit * (total - value))} left`);
    }
    return parts.join(', ');
  };
}

/** Whichever reads better: `1.2 s/step` for slow units (≥ 0.5 s each), `3.4 steps/s` for fast ones. */
function formatRate(secondsPerUnit: number, unit: string): string {
  const short = (value: number) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));
  // 0.5, not 1: a step of about a second stays `s/step` when it varies around 1 s.
  return secondsPerUnit >= 0.5
    ? `${short(secondsPerUnit)} s/${unit}`
    : `${short(1 / secondsPerUnit)} ${unit}s/s`;
}

/** `36s`, `1m24s`, `2h05m`. */
function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${pad(whole % 60)}s`;
  return `${Math.floor(whole / 3600)}h${pad(Math.floor(whole / 60) % 60)}m`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

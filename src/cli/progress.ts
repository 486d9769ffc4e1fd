// Progress reporting for long commands, on stderr so that stdout stays clean for tables and --json.
// On a terminal: a cli-progress bar with live metrics. Elsewhere (CI logs, pipes): one line per 10%.
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
}

export function createProgress(label: string, total: number, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (options.quiet) return { update() {}, log() {}, stop() {} };
  const formatInfo = (info?: Record<string, string | number>) =>
    info
      ? Object.entries(info)
          .map(([key, value]) => `${key} ${typeof value === 'number' ? formatNumber(value) : value}`)
          .join('  ')
      : '';
  if (!stream.isTTY) {
    let nextMark = 0;
    const start = Date.now();
    return {
      update(value, info) {
        if (value < nextMark && value !== total) return;
        nextMark = value + Math.max(1, Math.ceil(total / 10));
        const seconds = ((Date.now() - start) / 1000).toFixed(0);
        stream.write(`${label} ${value}/${total} (${seconds}s) ${formatInfo(info)}\n`);
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
      format: `${label} [{bar}] {value}/{total} | {eta_formatted} left | {info}`,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { info: '' });
  return {
    update(value, info) {
      bar.update(value, { info: formatInfo(info) });
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

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

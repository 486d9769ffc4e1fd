// The content-addressed verdict cache (issue 31 item 1): a judge's reply is stored under the SHA-256 of
// everything that determines it — endpoint, model, the full request body (messages, sampling options,
// seed) — so a resumed run, a repeated evaluation or two rewards asking the same question pay once. None
// of the frameworks we compare with caches verdicts (ART turns LiteLLM's cache off); it is safe here
// because a request is answered from the cache only when it is byte-for-byte the same request, and a
// judge called at temperature > 0 without a seed is never cached (its replies are draws, not verdicts).
// Only replies that parsed are stored: a failed call or a malformed reply is asked again next time (NeMo
// Gym's "retryable on resume").
//
// Storage: `judge-cache.sqlite` in the run's directory (WAL; a killed process loses at most the reply it
// was writing, never the file), or in memory when the reward has no directory. The API key is never part
// of the key or the file.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** The cache key of a request: SHA-256 over its canonical JSON (object keys sorted). */
export function cacheKey(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export interface CacheCounts {
  hits: number;
  misses: number;
  stored: number;
}

export class VerdictCache {
  private db: Database.Database | null = null;
  private readonly memory = new Map<string, string>();
  private path: string | null = null;
  readonly counts: CacheCounts = { hits: 0, misses: 0, stored: 0 };

  /** Keeps the cache in `path` from now on (a run's directory is known after the reward is built). */
  useFile(path: string): void {
    if (this.path === path) return;
    this.close();
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(
      'CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, reply TEXT NOT NULL, created TEXT NOT NULL)',
    );
    // what was cached in memory before the file was known moves into it
    const insert = db.prepare('INSERT OR IGNORE INTO verdicts (key, reply, created) VALUES (?, ?, ?)');
    for (const [key, reply] of this.memory) insert.run(key, reply, new Date().toISOString());
    this.memory.clear();
    this.db = db;
    this.path = path;
  }

  get(key: string): string | null {
    const found = this.db
      ? ((
          this.db.prepare('SELECT reply FROM verdicts WHERE key = ?').get(key) as
            | { reply: string }
            | undefined
        )?.reply ?? null)
      : (this.memory.get(key) ?? null);
    if (found === null) this.counts.misses++;
    else this.counts.hits++;
    return found;
  }

  put(key: string, reply: string): void {
    this.counts.stored++;
    if (this.db) {
      this.db
        .prepare('INSERT OR REPLACE INTO verdicts (key, reply, created) VALUES (?, ?, ?)')
        .run(key, reply, new Date().toISOString());
    } else {
      this.memory.set(key, reply);
    }
  }

  /** Entries stored (the file's, or memory's). */
  size(): number {
    if (!this.db) return this.memory.size;
    return (this.db.prepare('SELECT COUNT(*) AS n FROM verdicts').get() as { n: number }).n;
  }

  close(): void {
    this.db?.close();
    this.db = null;
    this.path = null;
  }
}

// run.sqlite of a run (the layout is in run-store.ts): opened read-only, or for writing in WAL mode with
// its tables created when missing and the sample columns a run predates added (sample-columns.ts).
//
// The return type is the caller's: run-store.ts assigns the result to its field of better-sqlite3's
// Database type, from which the type argument is inferred, and this file's signature names only
// SampleDatabase (the methods used here). Its .d.ts ships in the package (run-store.d.ts re-exports
// OpenMode from it) and @types/better-sqlite3 is a devDependency: naming better-sqlite3's types here
// made a user's `tsc` with `skipLibCheck: false` fail (TS7016); test/package/install.test.ts checks it.
import Database from 'better-sqlite3';
import { migrateSamples, type SampleDatabase } from './sample-columns.ts';

export type OpenMode = 'create' | 'resume' | 'read';

/**
 * Opens the run database at `path`; a writer (create, resume) gets the current schema. The value is a
 * better-sqlite3 Database: `Db` is for the caller to name that type (see above).
 */
export function openRunDatabase<Db extends SampleDatabase = SampleDatabase>(
  path: string,
  mode: OpenMode,
): Db {
  const db = new Database(path, { readonly: mode === 'read' });
  if (mode !== 'read') {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`
          CREATE TABLE IF NOT EXISTS metrics (step INTEGER NOT NULL, key TEXT NOT NULL, value REAL, PRIMARY KEY (step, key));
          CREATE TABLE IF NOT EXISTS samples (step INTEGER NOT NULL, problem_id TEXT, prompt TEXT, completion TEXT, reward REAL, reason TEXT);
          CREATE INDEX IF NOT EXISTS samples_step ON samples (step);
          CREATE TABLE IF NOT EXISTS events (time TEXT, kind TEXT, detail TEXT);
          CREATE TABLE IF NOT EXISTS reward_errors (step INTEGER NOT NULL, reason TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (step, reason));
        `);
    migrateSamples(db);
  }
  return db as unknown as Db;
}

// `curricula docs [--out DIR] [--check]`: writes docs/methods.md (every method: description, paper, file,
// options with defaults) and docs/config-reference.md (the train config's keys), generated from the
// plug-in definitions and the config schema (src/cli/docs/). `npm run docs:methods` runs it; --check
// only reports stale copies (exit code 1).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';

export function register(program: Command): void {
  program
    .command('docs')
    .summary('write the method index and config reference')
    .description(
      'write docs/methods.md (every method, its paper, file and options) and docs/config-reference.md, generated from the sources',
    )
    .option('--out <dir>', 'directory to write into', 'docs')
    .option('--root <dir>', 'repository root (where src/ is)', '.')
    .option('--check', 'write nothing; exit 1 when a file differs from what would be written')
    .action(async (options) => {
      const root = resolve(options.root);
      if (!existsSync(join(root, 'src', 'core', 'plugin.ts'))) {
        throw new UserError(
          `curricula docs reads the sources: ${root} is not a Curricula source checkout (no src/core/plugin.ts); pass --root`,
        );
      }
      const { generatedDocs } = await import('../docs/generated-docs.ts');
      const dir = resolve(options.out);
      const stale: string[] = [];
      for (const { file, text } of generatedDocs(root)) {
        const path = join(dir, file);
        const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
        if (current === text) continue;
        stale.push(path);
        if (options.check) continue;
        mkdirSync(dir, { recursive: true });
        writeFileSync(path, text);
        console.log(`wrote ${path}`);
      }
      if (options.check && stale.length > 0) {
        console.error(`stale: ${stale.join(', ')} (run npm run docs:methods)`);
        process.exitCode = 1;
      }
    });
}

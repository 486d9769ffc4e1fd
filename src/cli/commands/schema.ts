// `curricula schema [--out DIR] [--json]`: writes the JSON Schemas of the config files (train, pretrain,
// teach, distill; and eval, simulate for the library), generated from the zod schemas, for editors
// (src/api/json-schemas.ts). The repository's copies live in schemas/, which the examples' modelines use.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';

export function register(program: Command): void {
  program
    .command('schema')
    .summary('write JSON Schemas of the config files')
    .description('write JSON Schemas of the config files (for editor completion and checking)')
    .option('--out <dir>', 'directory to write <kind>.schema.json files into', 'schemas')
    .option('--kind <kind>', 'only this kind (train, pretrain, teach, distill, eval, simulate, train-rm)')
    .option(
      '--json',
      'print the schemas as one JSON object {kind: schema} on stdout instead of writing files',
    )
    .action(async (options) => {
      const { configJsonSchemaFiles, configSchemas } = await import('../../api/json-schemas.ts');
      const kinds = Object.keys(configSchemas);
      if (options.kind !== undefined && !kinds.includes(options.kind)) {
        throw new UserError(`unknown config kind '${options.kind}'; known: ${kinds.join(', ')}`);
      }
      const files = configJsonSchemaFiles().filter(
        (file) => options.kind === undefined || file.kind === options.kind,
      );
      if (options.json) {
        console.log(
          JSON.stringify(
            Object.fromEntries(files.map((file) => [file.kind, JSON.parse(file.text)])),
            null,
            2,
          ),
        );
        return;
      }
      const dir = resolve(options.out);
      mkdirSync(dir, { recursive: true });
      for (const file of files) {
        writeFileSync(join(dir, file.file), file.text);
        console.log(`wrote ${join(dir, file.file)}`);
      }
    });
}

// The public surface, read with the TypeScript compiler API in one program (one parse of the sources):
// 1. every name the entry points export (and every method of an exported interface or class) (src/index.ts and the src/api/* files that package.json maps to
//    `curricula` and its subpaths) has a doc comment where it is declared, so the API reference that
//    typedoc generates (`npm run docs:api`, typedoc.json) documents all of it;
// 2. the library examples (examples/library/*.ts, shown in docs/library.md) type-check against those
//    entry points, imported as a user imports them (`curricula`, `curricula/testing`, …; the mapping is
//    examples/library/tsconfig.json).
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const publicEntryPoints = [
  'src/index.ts',
  'src/api/rewards.ts',
  'src/api/tasks.ts',
  'src/api/curricula.ts',
  'src/api/guidance.ts',
  'src/api/environments.ts',
  'src/api/algorithms.ts',
  'src/api/backends.ts',
  'src/api/runs.ts',
  'src/api/testing.ts',
];

const parsed = ts.getParsedCommandLineOfConfigFile(
  `${root}examples/library/tsconfig.json`,
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  },
);
const examples = parsed!.fileNames;
const entryFiles = publicEntryPoints.map((file) => `${root}${file}`);
const program = ts.createProgram([...entryFiles, ...examples], parsed!.options);
const checker = program.getTypeChecker();

/** Methods of an exported interface or class (declared in src/) that have no doc comment, as typedoc requires. */
function undocumentedMethods(symbol: ts.Symbol): string[] {
  if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class))) return [];
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const members = [...checker.getPropertiesOfType(type)];
  if (symbol.flags & ts.SymbolFlags.Class)
    members.push(...checker.getPropertiesOfType(checker.getTypeOfSymbol(symbol)));
  return members
    .filter((member) => {
      const declaration = member.declarations?.[0];
      if (!declaration?.getSourceFile().fileName.startsWith(`${root}src/`)) return false;
      if (!ts.isMethodSignature(declaration) && !ts.isMethodDeclaration(declaration)) return false;
      const modifiers = ts.getCombinedModifierFlags(declaration);
      if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return false;
      return (
        member.getDocumentationComment(checker).length === 0 && !declaration.name.getText().startsWith('#')
      );
    })
    .map((member) => member.name);
}

describe('the public API', () => {
  it('documents every exported name', () => {
    const undocumented: string[] = [];
    let exported = 0;
    for (const file of entryFiles) {
      const source = program.getSourceFile(file);
      expect(source, file).toBeDefined();
      for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source!)!)) {
        exported++;
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        if (target.getDocumentationComment(checker).length === 0) {
          undocumented.push(`${file.slice(root.length)}: ${symbol.name}`);
        }
        undocumented.push(
          ...undocumentedMethods(target).map(
            (method) => `${file.slice(root.length)}: ${symbol.name}.${method}`,
          ),
        );
      }
    }
    expect(exported).toBeGreaterThan(100);
    expect(undocumented).toEqual([]);
  });

  it('type-checks the library examples as a user project would', () => {
    expect(examples.map((file) => file.slice(root.length)).sort()).toEqual([
      'examples/library/cancel-resume.ts',
      'examples/library/custom-algorithms.ts',
      'examples/library/plugins.ts',
      'examples/library/train-script.ts',
    ]);
    const problems = examples.flatMap((file) => {
      const source = program.getSourceFile(file)!;
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    });
    const text = problems.map((diagnostic) => {
      const where = diagnostic.file
        ? `${diagnostic.file.fileName.slice(root.length)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(text).toEqual([]);
  });
});

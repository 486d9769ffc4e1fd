#!/usr/bin/env node
// The shape of the source tree (issue 27's targets): files over 400 lines, and functions whose own
// lines (their span minus the functions nested in them) exceed 80, in non-test TypeScript under src/.
// `node scripts/source-shape.mjs [--json]` prints them; test/source-shape.test.ts holds the limits.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const maxFileLines = 400;
export const maxFunctionLines = 80;

/** Every .ts file under `dir` (relative to `root`), sorted. */
export function tsFiles(root, dir = 'src') {
  const out = [];
  const walk = (path) => {
    for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

function lineCount(text) {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

/** Files of `files` (relative to `root`) over `maxFileLines` lines: { file, lines }. */
export function longFiles(root, files) {
  return files
    .map((file) => ({ file, lines: lineCount(readFileSync(join(root, file), 'utf8')) }))
    .filter((entry) => entry.lines > maxFileLines);
}

function isFunction(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function functionName(node, source) {
  if (node.name !== undefined) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** Functions of one source text with their own lines (nested functions counted on their own). */
export function functionLengths(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  const span = (node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const out = [];
  const visit = (node, owner) => {
    if (isFunction(node)) {
      const entry = {
        file,
        name: functionName(node, source),
        line: lineOf(node.getStart(source)) + 1,
        lines: span(node),
      };
      if (owner !== undefined) owner.lines -= entry.lines - 1;
      out.push(entry);
      ts.forEachChild(node, (child) => visit(child, entry));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, owner));
  };
  visit(source, undefined);
  return out;
}

/** Functions of the non-test files over `maxFunctionLines` own lines: { file, name, line, lines }. */
export function longFunctions(root, files) {
  return files
    .filter((file) => !file.endsWith('.test.ts'))
    .flatMap((file) => functionLengths(file, readFileSync(join(root, file), 'utf8')))
    .filter((entry) => entry.lines > maxFunctionLines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.cwd();
  const files = tsFiles(root);
  const report = { files: longFiles(root, files), functions: longFunctions(root, files) };
  if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else {
    for (const { file, lines } of report.files) console.log(`file ${file}: ${lines} lines`);
    for (const { file, name, line, lines } of report.functions)
      console.log(`function ${file}:${line} ${name}: ${lines} own lines`);
    console.log(
      `${report.files.length} files over ${maxFileLines} lines, ${report.functions.length} functions over ${maxFunctionLines} own lines`,
    );
  }
}

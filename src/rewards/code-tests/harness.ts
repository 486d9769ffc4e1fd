// Builds what runs inside the sandbox for one test: the candidate's program file, plus, for a
// function-call test, a small harness that loads it, calls the named function with JSON arguments read from
// stdin and prints the JSON result. The expected value never enters the sandbox; comparison happens outside.
//
// Follows LiveCodeBench's call-based tests (load JSON inputs, call the method, `==` with tuples as lists):
// a top-level function `fn` is called; otherwise, LeetCode-style, `Solution().fn`. `Class.method` names
// instantiate the class. While the candidate runs, its own prints go to stderr so that stdout carries only
// the result. A program that writes to the real stdout anyway can only forge its own answer.

import { usesModuleSyntax } from './extract.ts';
import type { Language, SandboxFile } from './sandbox.ts';
import type { CallTest, TestCase } from './schema.ts';

export interface PreparedRun {
  files: SandboxFile[];
  entry: string;
  stdin: string;
}

const pythonHarness = `import json, sys
_spec = json.loads(sys.stdin.read())
_real_stdout = sys.stdout
sys.stdout = sys.stderr
sys.stdin = open("/dev/null")
_ns = {"__name__": "solution"}
exec(compile(open("/sandbox/solution.py", encoding="utf-8").read(), "solution.py", "exec"), _ns)
_name = _spec["fn"]
if "." in _name:
    _cls, _meth = _name.split(".", 1)
    _fn = getattr(_ns[_cls](), _meth)
elif callable(_ns.get(_name)):
    _fn = _ns[_name]
elif "Solution" in _ns and hasattr(_ns["Solution"], _name):
    _fn = getattr(_ns["Solution"](), _name)
else:
    raise NameError("function %r is not defined" % _name)
_result = _fn(*_spec["args"])
if isinstance(_result, (set, frozenset)):
    _result = sorted(_result)
_text = json.dumps(_result, allow_nan=False)
sys.stdout = _real_stdout
sys.stdout.write(_text)
sys.stdout.flush()
`;

// The function name is validated as an identifier (schema.ts) before it reaches this template.
function javascriptHarness(fn: string, moduleSyntax: boolean): string {
  const [head, method] = fn.split('.');
  const lookup = method
    ? `((instance) => instance[${JSON.stringify(method)}].bind(instance))(new (${head})())`
    : `typeof ${head} === 'function' ? ${head} : (typeof Solution === 'function' && typeof Solution.prototype.${head} === 'function' ? new Solution().${head}.bind(new Solution()) : (typeof module.exports === 'function' ? module.exports : module.exports.${head}))`;
  return `'use strict';
const fs = require('node:fs');
const util = require('node:util');
const spec = JSON.parse(fs.readFileSync(0, 'utf8'));
const realWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (...parts) => process.stderr.write(...parts);
console.log = (...parts) => process.stderr.write(util.format(...parts) + '\\n');
let source = fs.readFileSync('/sandbox/solution.js', 'utf8');
${moduleSyntax ? "source = source.replace(/^export\\s+(default\\s+)?/gm, '');" : ''}
const module_ = { exports: {} };
const load = new Function('require', 'module', 'exports', source + '\\n;return () => (' + ${JSON.stringify(lookup)} + ');');
const target = load(require, module_, module_.exports)();
if (typeof target !== 'function') throw new ReferenceError(${JSON.stringify(`function ${fn} is not defined`)});
Promise.resolve(target(...spec.args)).then((result) => {
  const text = JSON.stringify(result instanceof Set ? [...result] : result);
  if (text === undefined) throw new TypeError('result is not JSON-serialisable: ' + String(result));
  realWrite(text, () => process.exit(0));
}).catch((error) => { process.stderr.write(String(error && error.stack || error) + '\\n'); process.exit(1); });
`;
}

export function prepareRun(language: Language, code: string, test: TestCase): PreparedRun {
  if (language === 'python') {
    const solution = { path: '/sandbox/solution.py', content: code };
    if (test.kind === 'stdio') return { files: [solution], entry: solution.path, stdin: test.input };
    return {
      files: [solution, { path: '/sandbox/harness.py', content: pythonHarness }],
      entry: '/sandbox/harness.py',
      stdin: callInput(test),
    };
  }
  const moduleSyntax = usesModuleSyntax(code);
  if (test.kind === 'stdio') {
    // ES-module programs (import … from) run as .mjs; everything else as CommonJS.
    const path = moduleSyntax ? '/sandbox/solution.mjs' : '/sandbox/solution.js';
    return { files: [{ path, content: code }], entry: path, stdin: test.input };
  }
  return {
    files: [
      { path: '/sandbox/solution.js', content: code },
      { path: '/sandbox/harness.js', content: javascriptHarness(test.fn, moduleSyntax) },
    ],
    entry: '/sandbox/harness.js',
    stdin: callInput(test),
  };
}

function callInput(test: CallTest): string {
  return JSON.stringify({ fn: test.fn, args: test.args });
}

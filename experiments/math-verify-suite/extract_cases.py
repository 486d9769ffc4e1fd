"""Reads Math-Verify's own test suite (a local checkout of huggingface/Math-Verify: tests/*.py) and
prints its cases as JSON lines, without running it: every `@pytest.mark.parametrize` case of a test whose
body asserts `compare_strings(gold, pred, ...) == expected` (or `verify(parse(gold), parse(pred)) ==
result`), and every literal `assert compare_strings("...", "...", ...) == value` elsewhere. Each line:
{file, test, gold, pred, expected (0/1), match_types, precision, strict, allow_set_relation_comp}. The cases stay in the checkout:
run.sh pipes them to the comparison, nothing is written into this repository.

    python3 extract_cases.py /path/to/Math-Verify > /tmp/math-verify-cases.jsonl
"""
import ast
import json
import sys
from pathlib import Path


def literal(node):
    try:
        return ast.literal_eval(node)
    except Exception:
        return None


def call_options(call: ast.Call) -> dict:
    options = {
        "match_types": ["latex", "expr"],
        "precision": 6,
        "strict": True,
        "allow_set_relation_comp": False,
    }
    for keyword in call.keywords:
        if keyword.arg in options:
            options[keyword.arg] = keyword.value  # a name (bound by parametrize) or a literal
    return options


def compare_calls(function: ast.FunctionDef):
    """(call, expected node) of each `assert compare_strings(...) == X` / `verify(parse(..), parse(..)) == X`."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Assert):
            continue
        test = node.test
        expected = ast.Constant(True)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            expected, test = test.comparators[0], test.left
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            expected, test = ast.Constant(False), test.operand
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "int":
            test = test.args[0]
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
            if test.func.id == "compare_strings":
                yield test, expected, test.args[0], test.args[1]
            elif test.func.id == "verify" and all(
                isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "parse" and not arg.args[1:]
                for arg in test.args[:2]
            ):
                yield test, expected, test.args[0].args[0], test.args[1].args[0]


def resolve(node, bound: dict):
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    return literal(node)


def cases_of(path: Path):
    tree = ast.parse(path.read_text())
    for function in [node for node in tree.body if isinstance(node, ast.FunctionDef)]:
        if not function.name.startswith("test"):
            continue
        rows = [{}]
        for decorator in function.decorator_list:
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize":
                names = [name.strip() for name in literal(decorator.args[0]).split(",")]
                values = literal(decorator.args[1]) or []
                rows = [dict(zip(names, value if len(names) > 1 else [value])) for value in values]
        for call, expected, gold, pred in compare_calls(function):
            options = call_options(call)
            for bound in rows:
                case = {
                    "file": path.name,
                    "test": function.name,
                    "gold": resolve(gold, bound),
                    "pred": resolve(pred, bound),
                    "expected": resolve(expected, bound),
                    **{key: resolve(value, bound) if isinstance(value, ast.AST) else value for key, value in options.items()},
                }
                if isinstance(case["gold"], str) and isinstance(case["pred"], str) and case["expected"] is not None:
                    case["expected"] = int(bool(case["expected"]))
                    yield case


def main():
    root = Path(sys.argv[1]) / "tests"
    for path in sorted(root.glob("test_*.py")):
        for case in cases_of(path):
            print(json.dumps(case))


if __name__ == "__main__":
    main()

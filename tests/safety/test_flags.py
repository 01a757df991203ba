"""Every flag an answer can carry is raised by its name in one list and read by a user in words."""
import ast
from pathlib import Path

from core.safety.flags import LABELS, Flag, flag_label

CORE = Path(__file__).resolve().parents[2] / "core"


def test_every_flag_reads_as_words_and_hidden_data_says_what_was_hidden():
    assert set(LABELS) == set(Flag)
    assert flag_label("near_quote") == "quote not copied exactly" and flag_label(Flag.NEAR_QUOTE) == flag_label("near_quote")
    assert flag_label("pii_redacted:phone") == "phone number hidden"
    assert flag_label("an_older_flag") == "an older flag"  # a turn saved before a flag was renamed


def _raised_as_text(tree: ast.AST) -> list[str]:
    """String literals put into a list of flags: `flags.append("x")`, `flags + ["x"]`, `safety_flags=["x"]`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and ast.unparse(node.func.value).endswith("flags"):
            found += [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if isinstance(node, ast.BinOp) and ast.unparse(node.left).endswith("flags") and isinstance(node.right, ast.List):
            found += [e.value for e in node.right.elts if isinstance(e, ast.Constant)]
        if isinstance(node, ast.keyword) and (node.arg or "").endswith("flags") and isinstance(node.value, ast.List):
            found += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return found


def test_core_raises_flags_by_their_name_in_the_list_never_as_loose_text():
    loose = {str(path.relative_to(CORE)): raised for path in CORE.rglob("*.py")
             if (raised := _raised_as_text(ast.parse(path.read_text(encoding="utf-8"))))}
    assert loose == {}
    assert _raised_as_text(ast.parse('flags.append("x"); v = flags + ["y"]; Plan(safety_flags=["z"])')) == ["x", "y", "z"]

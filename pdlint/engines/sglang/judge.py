"""pdlint's verdict on one bare SGLang command line: the rule examples, the
unit tests and the conformance suite (which compares it with SGLang's own
resolution) all go through this one function."""

from __future__ import annotations

import shlex
from typing import Optional

from pdlint.model import ERROR, Launch
from pdlint.records import dataclass, field
from pdlint.rules import all_rules
from pdlint.text import TStr


@dataclass
class Judgement:
    reject: bool
    codes: list = field(default_factory=list)  # every rule that fired, errors and warnings
    errors: list = field(default_factory=list)  # error-severity codes
    messages: list = field(default_factory=list)
    role: Optional[str] = None


def judge(argv, env: Optional[dict] = None, version: Optional[str] = None,
          files: Optional[dict] = None) -> Judgement:
    """Judge ``python -m sglang.launch_server ARGV`` (a string or a list of words)
    with environment ``env``, against SGLang ``version`` (default: newest).
    ``files`` maps a path as written in the argv (a ``--config`` file) to its text."""
    from pdlint.engines.sglang.engine import EngineContext, candidates, interpret
    from pdlint.text import SourceFile
    sources = {p: SourceFile(p, text) for p, text in (files or {}).items()}
    words = shlex.split(argv) if isinstance(argv, str) else list(argv)
    tokens = [TStr.synthetic(w, "<argv>") for w in words]
    env_t = {k: TStr.synthetic(str(v), "<env>") for k, v in (env or {}).items()}
    launch = Launch(path="<argv>", line=1, engine="sglang", entrypoint="python -m sglang.launch_server",
                    kind="server", command=[TStr.synthetic("python", "<argv>")], argv=tokens, env=env_t)
    interpret(launch, EngineContext(resolve_config=lambda tok, l: sources.get(tok.text), version=version))
    rules = all_rules()
    cands = candidates(launch, lambda code: True)
    codes = [c.code for c in cands]
    errors = [c.code for c in cands if rules[c.code].severity == ERROR]
    return Judgement(bool(errors), codes, errors, [c.message for c in cands], launch.role)


def example_argv(argv: str) -> str:
    """An example command line as run by the tests and the oracle (``--model-path`` added)."""
    words = shlex.split(argv)
    if not any(w in ("--model-path", "--model") or w.startswith(("--model-path=", "--model=")) for w in words):
        words = ["--model-path", "@TINY@"] + words
    return shlex.join(words)

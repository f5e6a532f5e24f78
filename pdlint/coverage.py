"""Coverage accounting: which launch text pdlint checked, and which it did not.

pdlint must never pass launch text it did not check.  After the check stage
this module looks at every scanned file twice:

* **markers** — the raw text (comments left out) is searched for launch text:
  a known launcher (``sglang.launch_server``, ``sglang serve``,
  ``dynamo.sglang``, ``vllm serve``, vLLM's api_server, ``trtllm-serve``, the
  routers) or an engine-only flag (``--disaggregation-mode``,
  ``--kv-transfer-config``, ``--disaggregation-transfer-backend`` …, or the
  same as a config key).  A marker is *covered* when a checked launch has a
  token (or a reference hop) on that line: the launch came from there; on the
  first and the last line of a launch's command only the marker inside the
  command's own text is (``checked & unchecked`` on one line).  Every
  uncovered marker group becomes one ``PD020`` finding at its first line, with
  the most specific reason pdlint knows (a template line no role rendered, a
  command whose program pdlint does not recognise, a file kind pdlint does not
  read, …) and what the user can do.
* **gaps** — launches that were extracted but not fully checked: the role came
  from a variable pdlint cannot see (``PD021``), a ``--config`` file could not
  be found (``PD022``), an opaque word stands where flags could be
  (``PD023``).  Format adapters may also put explicit gaps on a launch
  (``Launch.gaps``).

The result is a :class:`Coverage`: per file a status (``checked``,
``partial``, ``unchecked``, ``error``, ``none``), the number of launches that
read it and its unchecked spots, plus the findings above.  Reports print the
summary ``N launches checked (P prefill, D decode, R routers) in F files; U
places with launch text not checked``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable, Optional

from pdlint import coverage_rules as CR, lazyre
from pdlint.model import ERROR, Finding, Gap, Launch, Origin
from pdlint.records import dataclass, field
from pdlint.text import CONFIGMAP_NOT_JOINED, DEPLOY_TIME, NOT_EXPANDED, NOT_EXPANDED_BUDGET, SPLIT_CUT

# -- markers -------------------------------------------------------------------------------------

_LAUNCHERS = (
    r"sglang\.launch_server", r"sglang\s+serve", r"dynamo\.(?:sglang|vllm|trtllm|frontend)",
    r"vllm\s+serve", r"vllm\.entrypoints\.openai\.api_server", r"vllm\.entrypoints\.grpc_server", r"trtllm-serve",
    r"tensorrt_llm\.commands\.serve(?![ \t]+import\b)",
    # vLLM's CLI module (what the `vllm` console script runs) with its `serve` sub-command, also as list items
    r"vllm\.entrypoints\.cli\.main(?=(?:[ \t]+|[\"'][ \t]*,[ \t]*[\"'])serve\b)",
    # the same CLIs as list items (`command: ["vllm", "serve"]`, aws-samples/sample-genai-on-eks-starter-kit;
    # unquoted in a flow sequence too: `command: [vllm, serve]`)
    r"(?:vllm|sglang)(?=[\"'][ \t]*,[ \t]*[\"']serve[\"']|[ \t]*,[ \t]*serve[ \t]*[,\]])",
    r"sglang_router\.launch_(?:router|server)",
    # SGLang's load balancer by its module path (sglang/srt/disaggregation/mini_lb.py, launch_lb.py until the
    # router moved to the sglang-router package) and the package's CLI (`python -m sglang_router launch|server`)
    r"(?:sglang\.srt\.)?disaggregation\.(?:mini_lb|launch_lb)(?![ \t]+import\b)", r"sgl_pdlb\.launch_lb", r"sglang_router(?=[ \t]+(?:launch|server)\b)",
    # sglang-router's console scripts, with their sub-command (also as list items: "smg", "launch") or a flag:
    # the package's name alone is a resource name (`name: sglang-router`, awslabs/ai-on-eks) or a case label
    r"(?:smg|amg)(?=(?:[ \t]+|[\"'][ \t]*,[ \t]*[\"'])(?:launch|server)\b)",
    # (not a container's or job's name: `docker run --name sglang-router --network host IMAGE ...`)
    r"(?<!--name )(?<!--name=)(?<!--hostname )(?<!--container-name )"
    r"sglang-router(?=(?:[ \t]+|[\"'][ \t]*,[ \t]*[\"'])(?:launch\b|server\b|--))",
    # vLLM's router (vllm-project/router): its module, and its console script followed by a flag
    r"vllm_router\.launch_router",
    # (or followed by the array of its arguments: `vllm-router "${router_args[@]}"`, field round rw33/a)
    r"(?<!--name )(?<!--name=)(?<!--hostname )(?<!--container-name )vllm-router(?=(?:[ \t]+|[\"'][ \t]*,[ \t]*[\"'])--"
    r"|[ \t]+\"?\$\{?[A-Za-z_])",
)
# (vLLM's FlexibleArgumentParser reads an option's underscores as dashes: --kv_transfer_config; SGLang's and
# Dynamo's own argparse options take the dash spelling only)
# (--pd-disaggregation: sglang-router's PD mode, also behind an image whose entry point pdlint does not know)
_FLAGS = (r"--disaggregation-[a-z][a-z-]*", r"--kv(?:-transfer-config|_transfer_config)",
          r"--is-(?:prefill|decode)-worker", r"--disagg-config", r"--(?:vllm-)?pd-disaggregation")
# the same settings as config-file keys (SGLang --config, TRT-LLM disaggregated configs, vLLM kv_role JSON)
# (``context_servers: 1`` is a count - TensorRT-LLM's disagg_cluster.minimal_instances - not a server section)
# (kv_role also in escaped JSON: "--kv-transfer-config={\"kv_role\":...}" in a double-quoted YAML string; not
# a shell variable of that name given an expansion, `kv_role=$(python3 -c ...)`: its value is no config's)
# (a JSON file's keys are quoted: `"disaggregation_mode": "prefill"`, field test rw22/a)
_KEYS = (r"disaggregation[-_]mode[\"']?\s*[:=]", r"[\"']?kv[-_]transfer[-_]config[\"']?\s*:",
         r"\\*[\"']?kv_role\\*[\"']?\s*(?::|=(?![ \t]*[\"']?[$`]))",
         r"context_servers[\"']?\s*:(?![ \t]*\d+[ \t]*$)", r"generation_servers[\"']?\s*:(?![ \t]*\d+[ \t]*$)")
#: example proxy scripts run as routers (launchers.SCRIPT_ROUTERS), also by a path (``$GIT_ROOT/.../toy_proxy_server.py``)
_SCRIPT_LAUNCHERS = (r"toy_proxy_server\.py", r"disagg_proxy_demo\.py", r"mooncake_connector_proxy\.py",
                     r"disagg_epd_proxy\.py")
MARKER = lazyre.compile(  # a launcher is not part of an image name (lmsysorg/sglang-router:v0.2) or a submodule
    r"(?P<launcher>(?:(?<![\w./-])(?:" + "|".join(_LAUNCHERS) + r")|(?<![\w.-])(?:" + "|".join(_SCRIPT_LAUNCHERS)
    # a console script by its installed path (`ExecStart=/opt/venv/bin/vllm serve M`, `{{ venv }}/bin/vllm serve`:
    # field test rw14/h, systemd units and Ansible templates)
    + r")|(?<=/bin/)(?:vllm\s+serve|sglang\s+serve|trtllm-serve))(?![\w:-]|\.\w))"
    # a flag ends at a non-word character or at a run of underscores standing for blanks (llm-d-benchmark's
    # "--kv-transfer-config____'{...}'" env values), not at one underscore continuing a name
    r"|(?P<flag>(?<![\w-])(?:" + "|".join(_FLAGS) + r")(?![A-Za-z0-9-]|_(?!_)))"
    # a key after a dot is an attribute (Python's `config.kv_transfer_config.kv_role == ...`, aibrix's KV
    # connectors), after a `$` or `${` a shell variable read (`[ "$kv_role" = "kv_producer" ]`,
    # littlemex/disaggregated-inference-with-nixl-over-aws-efa's verify-s3-deployment.sh), not a config key
    r"|(?P<key>(?<![\w.$-])(?<!\$\{)(?:" + "|".join(_KEYS) + r"))")
_JINJA_COMMENT = lazyre.compile(r"\{#.*?#\}", re.S)
_GO_COMMENT = lazyre.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.S)
_GO_CLOSE = lazyre.compile(r"\*/\s*-?\}\}")


def _sub_before(rx, text: str, end: int) -> str:
    """``rx.sub(_blank, text)`` for a pattern whose matches end with a closer whose last one ends at ``end``:
    searched no further, no start scans to the end and fails (a lazy ``.*?`` from each of n unclosed
    openers would be quadratic)."""
    if end <= 1:
        return text
    return rx.sub(_blank, text[:end]) + text[end:]


@dataclass(frozen=True)
class Marker:
    line: int
    column: int
    text: str
    kind: str  # launcher | flag | key


def _strip_line_comment(line: str) -> str:
    """The line without a ``#`` comment (YAML and shell): a ``#`` at the start
    of the line or after a blank, outside quotes."""
    if "#" not in line:
        return line
    single = double = False
    prev = " "
    for i, ch in enumerate(line):
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single and prev != "\\":
            double = not double
        elif ch == "#" and not single and not double and prev in " \t":
            return line[:i]
        prev = ch
    return line


_PROSE_WORD = lazyre.compile(r"[(\"'`]?[A-Za-z][a-z]*[,.;:)!?\"'`]*")


def _prose(line: str) -> bool:
    """A sentence that mentions a flag (documentation in a YAML string), not a command:
    eight words or more, most of them plain words."""
    words = line.split()
    if len(words) < 8:
        return False
    return sum(1 for w in words if _PROSE_WORD.fullmatch(w)) >= 0.6 * len(words)


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


#: a text or process search up to its pattern operand (past its options): what the pattern names is searched
#: for, not run (``pgrep -f 'vllm.entrypoints.openai.api_server.*kv_producer'``, ``grep -q '"kv_role":...'``)
_SEARCH = lazyre.compile(r"(?<![\w./-])(?:[ef]?grep|pgrep|pkill)(?:[ \t]+-{1,2}[A-Za-z][\w-]*)*[ \t]+(?=[^\s|;&)<>`])")
#: where an unquoted operand ends
_WORD_END = lazyre.compile(r"[\s|;&)<>`]")


def _search_patterns(line: str) -> list:
    """``(start, end)`` of the pattern operands of the ``grep`` / ``pgrep`` / ``pkill`` commands in ``line``:
    a quoted operand (also with escaped quotes, ``\\"...\\"`` in a JSON string) to its closing quote, an
    unquoted one to its end; an operand whose quote does not close on the line is none.  Launch text in one is a
    pattern a readiness check or a cleanup searches for: a task file's ``"skip_if": "pgrep -f
    'vllm.entrypoints.openai.api_server.*kv_producer...'"`` (littlemex/disaggregated-inference-with-nixl-over-aws-efa's
    JSON task templates), a checker's ``grep -q '"kv_role":"kv_producer"'``."""
    out = []
    for m in _SEARCH.finditer(line):
        i = j = m.end()
        while j < len(line) and line[j] == "\\":
            j += 1
        if j < len(line) and line[j] in "\"'":
            closer = line[i:j + 1]
            k = line.find(closer, j + 1)
            while closer == '"' and k > 0 and line[k - 1] == "\\":
                k = line.find(closer, k + 1)  # (an escaped quote inside a double-quoted pattern)
            if k >= 0:
                out.append((i, k + len(closer)))
        else:
            end = _WORD_END.search(line, i)
            out.append((i, len(line) if end is None else end.start()))
    return out


def _line_markers(line: str, start: int = 0, end: Optional[int] = None):
    """The matches of :data:`MARKER` in ``line[start:end]`` outside the pattern operands of searches
    (:func:`_search_patterns`)."""
    end = len(line) if end is None else end
    spans = None
    for m in MARKER.finditer(line, start, end):
        if spans is None:
            text = line[start:end]
            spans = _search_patterns(text) if "grep" in text or "pkill" in text else []
            if "{{" in text or "{%" in text:
                spans += [mm.span() for mm in _CONDITION_ACTION.finditer(text)]
        at = m.start() - start
        if not any(s <= at < e for s, e in spans):
            yield m


#: a template's condition (Go `{{ if ... }}` / `{{ else if ... }}` / `{{ with ... }}`, Jinja `{% if %}` /
#: `{% elif %}`): a word compared there (`eq .Values.modelServerType "trtllm-serve"`, the Gateway API Inference
#: Extension charts) chooses what is written; it is not written itself
_CONDITION_ACTION = lazyre.compile(r"\{\{-?\s*(?:if|else\s+if|with)\b.*?\}\}|\{%-?\s*(?:if|elif)\b.*?%\}")


# Every match of MARKER holds one of these: only the lines that hold one are searched.
_LITERALS = ("sglang", "dynamo.", "vllm", "trtllm-serve", "disagg", "kv-transfer-config", "kv_transfer_config",
             "-worker", "kv_role", "smg", "amg", "toy_proxy_server", "disagg_proxy_demo", "mooncake_connector_proxy",
             "context_servers", "generation_servers", "sgl_pdlb")


def _literal_lines(text: str):
    """``(start, end)`` of each line of ``text`` holding one of :data:`_LITERALS` (a line once per literal
    it holds; ``end``: its newline, or the end of the text)."""
    find, rfind = text.find, text.rfind
    for lit in _LITERALS:
        i = find(lit)
        while i >= 0:
            end = find("\n", i)
            yield rfind("\n", 0, i) + 1, len(text) if end < 0 else end
            if end < 0:
                break
            i = find(lit, end)


def _marker_lines(text: str) -> list:
    """The numbers (1-based, ascending) of the lines of ``text`` holding one of :data:`_LITERALS`."""
    out = []
    line, at = 1, 0
    for start in sorted({start for start, _ in _literal_lines(text)}):
        line += text.count("\n", at, start)
        at = start
        out.append(line)
    return out


def may_hold_launch(text: str) -> bool:
    """True when ``text`` holds one of the literals launch text is found from (:data:`_LITERALS`, any case, or
    ``trtllm``): the least a file that can make launch text - a Helm chart's template or values, the words of a
    list (``- vllm`` / ``- serve``) - must hold.  Far weaker than :func:`has_launch_text`: for skipping work."""
    low = text.lower()
    return any(lit in low for lit in _LITERALS) or "trtllm" in low


def has_launch_text(text: str) -> bool:
    """True when ``text`` holds launch text (a match of :data:`MARKER`, comments included).  Searched on
    the lines that hold one of :data:`_LITERALS` only, each line once (a line of many literals: a file over
    the size limit is searched too, up to 32 MB, pdlint.extract): the pattern itself takes tens of
    milliseconds to find nothing in a megabyte."""
    searched: set = set()
    for start, end in _literal_lines(text):
        if start not in searched:
            searched.add(start)
            if next(_line_markers(text, start, end), None) is not None:
                return True
    return False


# a YAML `description:` key with a value on its line (a scalar, or `|` / `>` and the block below); and the
# annotation `kubectl apply` keeps of the object as last applied (a JSON copy of the spec the same file holds,
# in `kubectl get -o yaml` dumps: highopes/pd-disaggregation-demo, field test rw6/b)
_DESCRIPTION = lazyre.compile(r"([ \t]*(?:-[ \t]+)*)(?:description|[\"']?kubectl\.kubernetes\.io/last-applied-configuration"
                          r"[\"']?):[ \t]+\S")


def _description_lines(lines: list) -> frozenset:
    """The numbers (1-based) of the lines of YAML ``description:`` values: the key's line and the lines below
    indented deeper than the key (a plain scalar continued, a block scalar).  Documentation, not a command:
    a CRD schema's ``description: Extra arguments for vllm serve`` (production-stack's VLLMRuntime)."""
    out = set()
    indent = None  # the column of the description key whose value may continue
    for n, line in enumerate(lines, 1):
        if indent is not None:
            body = line.lstrip(" ")
            if not body or len(line) - len(body) > indent:
                out.add(n)
                continue
            indent = None
        m = _DESCRIPTION.match(line)
        if m:
            out.add(n)
            indent = len(m.group(1))
    return frozenset(out)


#: markers examined on one line (field test rw23/h: 90,000 on one 2 MB line took 90 s, each checked against the line)
MAX_LINE_MARKERS = 64


def find_markers(text: str, kind: str = "", skip: frozenset = frozenset()) -> list:
    """Launch-text markers of one file's text, comments and YAML ``description:`` values left out, in text
    order; none on the lines in ``skip`` (lines a checked launch covers whole: what they hold was checked)."""
    if "{#" in text:
        text = _sub_before(_JINJA_COMMENT, text, text.rfind("#}") + 2)
    if "/*" in text and "{{" in text:
        last = -1
        for m in _GO_CLOSE.finditer(text):
            last = m.end()
        text = _sub_before(_GO_COMMENT, text, last)
    out = []
    lines = None
    described = None
    for n in _marker_lines(text):
        if n in skip:
            continue
        if lines is None:
            lines = text.split("\n")
        line = lines[n - 1]
        if not MARKER.search(line):
            continue
        if described is None:
            described = _description_lines(lines) if "description:" in text or "last-applied-configuration" in text \
                else frozenset()
            if kind == "python":
                described = described | _docstring_lines(text)
        if n in described:
            continue
        # (a `#!` line is no comment to the kernel: `#!/usr/bin/env -S python3 -m sglang.launch_server ...` runs the
        # server with the script's path appended - hostile-input round rw27/h P14)
        code = line[2:] if n == 1 and line.startswith("#!") else line if kind == "nohash" else \
            _strip_line_comment(line)
        if _prose(code) or _PY_IMPORT.match(code) or (kind == "python" and (
                _PY_ANNOTATION.match(code) or "add_argument(" in code or _PY_DEF.match(code))):
            continue
        shell_case = _CASE_LABEL.match(code) if kind == "shell" and ")" in code else None
        installs = "install" in code
        seen = 0
        for m in _line_markers(code):
            seen += 1
            if seen > MAX_LINE_MARKERS:
                break  # (a line's spot needs its first ones; each further one costs a scan of the line)
            if installs and _installs(code, m.start()):
                continue  # `RUN pip install sglang-router --force-reinstall`: a package, not a launch
            if kind == "python" and m.lastgroup == "key" and code[m.start()] not in "\"'" and \
                    _PY_INTERPOLATED.match(code, m.end()):
                continue  # `f"... kv_transfer_config:{vllm_config.kv_transfer_config}"`: a log message (llumnix)
            if kind == "shell" and (shell_case is not None and m.start() < shell_case.end() or
                                    m.lastgroup == "key" and _SHELL_ASSIGNED.match(code, m.start())):
                # a script's own option parser (`--disaggregation-mode) mode="$2"; shift 2 ;;`) and its variables
                # (`disaggregation_mode="none"`): no launch (NVIDIA/cloudai's dynamo_mocker.sh, field test rw14/g)
                continue
            out.append(Marker(n, m.start() + 1, m.group(0).rstrip(":= \t\"'\\"), m.lastgroup or "flag"))
    if "serve" in text and _block_cli_hint(text):
        out += _block_list_markers(text, skip)
        out.sort(key=lambda mk: (mk.line, mk.column))
    return out


# -- engines pdlint has no rules for -------------------------------------------------------------

#: the flag (and value) that makes a LightLLM or LMDeploy server a prefill/decode one (PD024), also as list items
#: (`"--run_mode", "prefill"`, `- --role` / `- Prefill`); each searched in files that name its engine
#: between a flag and its value: `=`, a list's comma (the value may be on the next line of a flow list), blanks and
#: `\`-continued lines (rw25/h item 5); the value may be a variable (`--run_mode $MODE`: maybe PD, said as such)
_SEP = r"(?:[ \t]*[=,]\s*|(?:\s|\\\n)+)(?:-[ \t]+)?[\"']?"
_VAR = r"\$\{?[A-Za-z_]\w*\}?"
_LIGHTLLM_PD = lazyre.compile(r"--run_mode[\"']?" + _SEP +
                          r"(?:prefill|decode|pd_master|config_server|nixl_prefill|nixl_decode|" + _VAR + r")(?![\w-])")
_LMDEPLOY_PD = lazyre.compile(r"--role[\"']?" + _SEP + r"(?:Prefill|Decode|" + _VAR + r")(?![\w-])|"
                          r"--serving-strategy[\"']?" + _SEP + r"(?:DistServe|" + _VAR + r")(?![\w-])")
#: MindIE's PD ("dmi") mode, in its start script's environment or its config.json (rw25/a: a MindIE PD start script
#: passed with no word)
_MINDIE_PD = lazyre.compile(r"MINDIE_INFER_MODE[\"']?" + _SEP + r"dmi(?![\w-])|\"inferMode\"\s*:\s*\"dmi\"")
#: Alibaba's RTP-LLM (`rtp_llm.start_server` with `ROLE_TYPE=PREFILL` / `--role_type DECODE`: its
#: rtp_llm/server/server_args/role_group_args.py) and JD's xLLM (`xllm --enable_disagg_pd=true --instance_role=PREFILL`):
#: field test rw27/a, both passed as "No launch text found"
_RTP_LLM_PD = lazyre.compile(r"(?:--role_type|\bROLE_TYPE)[\"']?" + _SEP + r"(?:PREFILL|DECODE|" + _VAR + r")(?![\w-])")
_XLLM_PD = lazyre.compile(r"--instance_role[\"']?" + _SEP + r"(?:PREFILL|DECODE|MIX|" + _VAR + r")(?![\w-])")
_OTHER_ENGINES = (("lightllm", "LightLLM", _LIGHTLLM_PD), ("lmdeploy", "LMDeploy", _LMDEPLOY_PD),
                  ("mindie", "MindIE", _MINDIE_PD), ("rtp_llm", "RTP-LLM", _RTP_LLM_PD), ("xllm", "xLLM", _XLLM_PD))


def other_engine_spots(path: str, text: str) -> list:
    """PD024 spots: the prefill/decode launches in ``text`` of an engine pdlint has no rules for
    (:data:`_OTHER_ENGINES`), at the flag that makes each one PD; text in a ``#`` comment left out."""
    if "--" not in text and "dmi" not in text and "ROLE_TYPE" not in text:
        return []
    low = text.lower()
    out = []
    for word, name, rx in _OTHER_ENGINES:
        if word not in low:
            continue
        for m in rx.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.start())
            line_text = text[start:end if end >= 0 else len(text)]
            if len(_strip_line_comment(line_text)) <= m.start() - start:
                continue  # in a comment
            line = text.count("\n", 0, m.start()) + 1
            shown = " ".join(w for w in m.group(0).replace('"', " ").replace("'", " ").replace(",", " ")
                             .replace("\\", " ").split() if w != "-")  # (a YAML block list's `- ` items)
            if "$" in shown.split()[-1]:  # (a mode pdlint cannot see: maybe prefill/decode, said as such)
                reason = (f"{name} launch whose mode is a value pdlint cannot see (`{shown}`), a prefill/decode server "
                          f"if it says so, not checked: pdlint has rules for SGLang, vLLM and TensorRT-LLM servers only")
            else:
                last = shown.split()[-1]
                # (a PD master, config server or proxy is no prefill/decode server: rw25/a)
                what = {"pd_master": "prefill/decode master", "config_server": "prefill/decode config server",
                        "DistServe": "prefill/decode proxy"}.get(last, "prefill/decode launch")
                reason = (f"{name} {what} (`{shown}`) not checked: pdlint has rules for SGLang, vLLM "
                          f"and TensorRT-LLM servers only")
            hint = (f"check this launch against {name}'s own arguments by hand; to record that it stays unchecked, put "
                    f"`# pdlint: ignore[PD024]` on the line or give the file PD024 in `per-file-ignores`")
            out.append(Spot(path, line, m.start() - start + 1, line, CR.OTHER_ENGINE.code, reason, hint,
                            m.group(0) if "\n" not in m.group(0) else m.group(0).split()[0].strip("\"',")))
    return out


#: a Python import of a server module (``from vllm.entrypoints.openai.api_server import (``): no launch
_PY_IMPORT = lazyre.compile(r"[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b|import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*(?:,|$))")
#: a Python field's or parameter's annotation, in a .py file (``disaggregation_mode: str``, ``kv_role: Optional[str] =
#: None``, ``disaggregation_mode: DisaggregationMode,``: a log parser's dataclass, ishandhanani/infbench, and an
#: SGLang fork's own source, field tests rw12/c and rw13/e): a name and a type, no launch; nor an argparse definition
_PY_ANNOTATION = lazyre.compile(r"[ \t]*\w+[ \t]*:[ \t]*[A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]*)*"
                            r"[ \t]*(?:=[ \t]*(?:None|[\w.]+|[\"'][^\"']*[\"'])[ \t]*)?,?[ \t]*$")
#: a Python function's signature (``def __init__(self, kv_transfer_config: KVTransferConfig):``, field test rw20/f)
_PY_DEF = lazyre.compile(r"[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(")


def _docstring_lines(text: str) -> frozenset:
    """The lines of a Python file's docstrings (a module's, class's or function's first string): documentation, a
    usage example (`vllm serve <your_model> \\ --swap-space 16` in vLLM's benchmark_serving.py, copied into many
    benchmark repositories: field test rw20/f), never a command.  Parsed, never run; none when it does not parse."""
    import ast
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                out.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return frozenset(out)


#: an f-string's replacement field right after a marker (``kv_transfer_config:{cfg.kv_transfer_config}``)
_PY_INTERPOLATED = lazyre.compile(r"[ \t]*\{[A-Za-z_]")
#: a ``case`` item's patterns in a script (``--disaggregation-mode)``, ``-m|--mode)``)
_CASE_LABEL = lazyre.compile(r"[ \t]*\(?[ \t]*[\"']?[\w*.-]+[\"']?(?:[ \t]*\|[ \t]*[\"']?[\w*.-]+[\"']?)*[ \t]*\)")
#: a shell variable assigned (``disaggregation_mode="none"``, ``kv_role=kv_both``): a name, not a config key
_SHELL_ASSIGNED = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: a package manager's install, up to a marker (no command separator between them)
_INSTALL = lazyre.compile(r"\b(?:pip3?|uv[ \t]+pip|conda|mamba|micromamba|apt(?:-get)?|yum|dnf|apk)[ \t]+install\b[^;&|]*$")


def _installs(code: str, at: int) -> bool:
    """Is the marker at ``at`` a word of a package manager's install command (a package's name)?"""
    return _INSTALL.search(code[:at]) is not None


#: a CLI written as YAML block-sequence items, one word per line (``- vllm`` / ``- serve``): line by line no
#: marker holds (the program and its sub-command are on two lines)
_BLOCK_CLI_HINT = lazyre.compile(r"[ \t]*-[ \t]+[\"']?(?:vllm|sglang)[\"']?[ \t]*")
_BLOCK_CLI = lazyre.compile(r"^(?P<indent>[ \t]*)-[ \t]+(?P<q>[\"']?)(?P<cli>vllm|sglang)(?P=q)[ \t]*(?:#[^\n]*)?\n"
                        r"(?:[ \t]*(?:#[^\n]*)?\n)*(?P=indent)-[ \t]+([\"']?)serve\4[ \t]*(?:#[^\n]*)?$", re.M)


def _block_cli_hint(text: str) -> bool:
    """Does a line of ``text`` hold only ``- vllm`` or ``- sglang`` (:data:`_BLOCK_CLI_HINT`)?  Only the lines
    holding the word are matched: a multi-line ``^`` pattern is tried at every character of the text, a
    fortieth of a 1000-file scan's time."""
    find, rfind = text.find, text.rfind
    for word in ("vllm", "sglang"):
        i = find(word)
        while i >= 0:
            end = find("\n", i)
            end = len(text) if end < 0 else end
            if _BLOCK_CLI_HINT.fullmatch(text, rfind("\n", 0, i) + 1, end):
                return True
            i = find(word, end)
    return False


def _block_list_markers(text: str, skip: frozenset) -> list:
    """Launchers written as a block list, ``- vllm`` then ``- serve`` at the same indentation (an argv list under
    a key pdlint does not read as a command: ``launchArgv:`` of an unknown resource), outside ``description:``
    values: a marker at the program's word."""
    out = []
    lines = None
    for m in _BLOCK_CLI.finditer(text):
        a = m.start("cli")
        n = text.count("\n", 0, a) + 1
        if n in skip:
            continue
        if lines is None:
            lines = text.split("\n")
            described = _description_lines(lines) if "description:" in text else frozenset()
        if n in described:
            continue
        out.append(Marker(n, a - (text.rfind("\n", 0, a) + 1) + 1, m.group("cli"), "launcher"))
    return out


# -- results ---------------------------------------------------------------------------------------

@dataclass
class Spot:
    """One place with launch text that no checked launch covers."""

    path: str
    line: int
    column: int
    end_line: int
    code: str
    reason: str
    hint: str
    text: str = ""

    def as_dict(self) -> dict:
        d = {"line": self.line, "column": self.column, "code": self.code, "reason": self.reason,
             "hint": self.hint}
        if self.end_line != self.line:
            d["end_line"] = self.end_line
        if self.text:
            d["text"] = self.text
        return d


@dataclass
class Undecided:
    """A flag's value written where pdlint cannot see it (``--tp-size $TP``) that a check needed: that check
    decided nothing.  ``name``: the variable to give a value (``TP``), "" when the text names none; ``deployed``:
    the value is made when the template is deployed (a fact, a lookup, a filter pdlint does not have:
    ``$lookup_env``), it names no variable."""

    line: int
    column: int
    flag: str
    text: str
    name: str = ""
    deployed: bool = False
    unexpanded: bool = False  # a GitLab variable nested past the bounds of pdlint's expansion (rw31/h P2)
    budget: bool = False  # ... whose expansion the file's budget, not the value's bounds, stopped (rw33/h P5)
    #: a just recipe's parameter: (recipe, its default or None) (rw34/a P2)
    recipe_param: tuple = ()
    #: a Kubernetes env value from a ConfigMap of another file, one pdlint did not join (rw35/b P2)
    configmap: bool = False
    #: what a shell loop leaves that pdlint cut by its own bound (its paths kept splitting: SPLIT_CUT, rw35/i P5)
    loop_cut: bool = False

    def cause(self) -> str:
        """Why the value is unseen, as the text report's advice tells it (w37 left the JSON without it):
        ``file-budget`` (the file's GitLab expansions spent pdlint's budget first), ``expansion-bounds`` (a
        GitLab variable nested past the value's bounds), ``deployed`` (made when the template is deployed),
        ``recipe-parameter`` (a just recipe's parameter), ``configmap-not-joined`` (a ``configMapKeyRef`` into a
        ConfigMap of another file), ``loop-bound`` (what a shell loop of known count leaves, which pdlint cut by its
        bound on loops whose paths keep splitting), ``variable`` (a name ``--var`` or a values file gives) or
        ``not-in-file`` (a value only the file can fix: a secret, the downward API...)."""
        if self.budget:
            return "file-budget"
        if self.unexpanded:
            return "expansion-bounds"
        if self.deployed:
            return "deployed"
        if self.recipe_param:
            return "recipe-parameter"
        if self.configmap:
            return "configmap-not-joined"
        if self.loop_cut:
            return "loop-bound"
        return "variable" if self.name else "not-in-file"

    def as_dict(self) -> dict:
        d = {"line": self.line, "column": self.column, "flag": self.flag, "text": self.text, "cause": self.cause()}
        if self.name:
            d["name"] = self.name
        if self.recipe_param:
            d["recipe"] = self.recipe_param[0]
            if self.recipe_param[1] is not None:
                d["default"] = self.recipe_param[1]
        return d


@dataclass
class FileCoverage:
    path: str
    status: str = "none"  # checked | partial | unchecked | error | none | disabled
    launches: int = 0
    markers: int = 0
    spots: list = field(default_factory=list)
    error: Optional[str] = None
    undecided: list = field(default_factory=list)  # Undecided, sorted
    #: status "disabled": what turned off every rule that judges its launches (a config, the command line)
    disabled_by: Optional[str] = None

    def as_dict(self) -> dict:
        d = {"status": self.status, "launches": self.launches, "unchecked": [s.as_dict() for s in self.spots]}
        if self.error:
            d["error"] = self.error
        if self.disabled_by:
            d["disabled_by"] = self.disabled_by
        if self.undecided:
            d["undecided"] = [u.as_dict() for u in self.undecided]
        return d


@dataclass
class Coverage:
    files: dict = field(default_factory=dict)  # display path -> FileCoverage (scanned files, in order)
    launches: int = 0
    by_role: dict = field(default_factory=dict)  # prefill / decode / other / routers -> count
    spots: list = field(default_factory=list)  # every unchecked spot (sorted)
    findings: list = field(default_factory=list)
    unpaired: dict = field(default_factory=dict)  # prefill / decode -> checked servers no pair rule checked
    unpaired_launches: list = field(default_factory=list)  # those launches (this run's; not in any report)

    @property
    def files_with_launches(self) -> int:
        return sum(1 for f in self.files.values() if f.launches)

    @property
    def unchecked(self) -> int:
        return len(self.spots)

    @property
    def undecided(self) -> int:
        return sum(len(f.undecided) for f in self.files.values())

    @property
    def launch_text(self) -> bool:
        """Did any scanned file hold launch text (checked or not)?"""
        return any(f.markers or f.launches or f.spots for f in self.files.values())

    def summary(self) -> str:
        """``N launches checked (P prefill, D decode, R routers) in F files; U places with launch text not checked``."""
        parts = [f"{self.by_role.get('prefill', 0)} prefill", f"{self.by_role.get('decode', 0)} decode"]
        if self.by_role.get("other"):
            parts.append(f"{self.by_role['other']} other")
        n = self.by_role.get("routers", 0)
        routers = _n(n, "router")
        unjudged = self.by_role.get("routers_unjudged", 0)
        if unjudged:  # (a router's URLs are checked; its own options only where a table has them)
            routers += ("; its options" if n == 1 else f"; the options of {unjudged}") + \
                " not checked: pdlint has no table of them"
        parts.append(routers)
        f = self.files_with_launches
        text = (f"{_n(self.launches, 'launch', 'launches')} checked ({', '.join(parts)}) in "
                f"{_n(f, 'file')}")
        u = self.unchecked
        text += f"; {_n(u, 'place')} with launch text not checked"
        return text

    def unpaired_summary(self) -> str:
        """``N launches not paired (P prefill, D decode): ...``, or "" when every prefill and decode server
        has a partner: a pair rule that did not run is never a silent pass."""
        p, d = self.unpaired.get("prefill", 0), self.unpaired.get("decode", 0)
        if not p and not d:
            return ""
        refused = self.unpaired.get("refused", 0)  # of a kustomize build kustomize refuses (PD106)
        # of a matrix run pdlint sampled in part: the jobs of the other role exist, pdlint did not run them
        unsampled = self.unpaired.get("unsampled", 0)
        why = f"no server of the other role in {'its' if p + d == 1 else 'their'} deployment"
        # of a deployment with a server of a role pdlint could not decide: it may be the other role
        roleless = self.unpaired.get("roleless", 0)
        if roleless:
            them = "its" if p + d == 1 else "their"
            beside = (f"no server of the other role pdlint could decide in {them} deployment: a server there has "
                      f"no role pdlint could read (set by a value it cannot see, or by a branch of a role test it "
                      f"cannot follow) and may be the other role")
            why = beside if roleless >= p + d else why + f"; or ({roleless} of them) {beside}"
        if refused:
            why = ("kustomize refuses the build that holds " + ("it" if p + d == 1 else "them") if refused >= p + d
                   else why + f" or ({refused} of them) kustomize refuses the build that holds them") + " (PD106)"
        if unsampled:
            them = "its" if p + d == 1 else "their"
            sampled = (f"the jobs of the other role of {them} matrix run were not among those pdlint ran (the "
                       f"matrix's sample, PD020)")
            why = sampled if unsampled >= p + d else why + f"; or ({unsampled} of them) {sampled}"
        return (f"{_n(p + d, 'launch', 'launches')} not paired ({p} prefill, {d} decode): {why}, so the "
                f"prefill/decode pair rules did not check {'it' if p + d == 1 else 'them'}")

    def undecided_summary(self, named: Optional[set] = None) -> str:
        """``N flag values pdlint cannot see left checks undecided: --tp-size $TP (run.sh:2:99); ...``, or "":
        a check that read a value from the environment or a template placeholder decided nothing, and the
        summary says so instead of passing it as checked.  ``named``: the files named on the command line when
        the run brought in others (a decode script's prefill sibling, checked for the pair rules): the values
        of those others are counted, not listed - the user did not name them (field test rw31/a item 1)."""
        items = [(p, u) for p, f in sorted(self.files.items()) for u in f.undecided]
        others = sorted({p for p, _ in items if named and p not in named})
        if others:
            items = [(p, u) for p, u in items if p in named]
            n = sum(len(self.files[p].undecided) for p in others)
            brought = (f"{_n(n, 'flag value')} pdlint cannot see in {'a file' if len(others) == 1 else 'files'} "
                       f"checked with {'the named file' if len(named) == 1 else 'the named ones'} (their launches pair "
                       f"with or read {'it' if len(named) == 1 else 'them'}: "
                       f"{', '.join(others[:3])}{' ...' if len(others) > 3 else ''}) left checks undecided: check "
                       f"{'that file' if len(others) == 1 else 'those files'} to see {'it' if n == 1 else 'them'}")
            if not items:
                return brought
            return self._undecided_line(items) + ". " + brought[0].upper() + brought[1:]
        if not items:
            return ""
        return self._undecided_line(items)

    def _undecided_line(self, items: list) -> str:
        shown = "; ".join(f"{u.flag} {u.text} ({p}:{u.line}:{u.column})" for p, u in items[:3])
        more = f"; and {len(items) - 3} more (`--format json` lists them under coverage.files)" if len(items) > 3 else ""
        names = sorted({u.name for _, u in items if u.name and not u.name.startswith(".Values.")})
        one = len(items) == 1
        value = "value" if one else "values"
        ways = []
        # (a sed template's `{NAME}`: the value the script that renders the file substitutes, rw32/a item 1)
        # (only a single-brace `{NAME}`: not just's `{{NAME}}` nor the shell's `${NAME}`, rw34/a P2)
        braced = sorted({u.name for _, u in items if u.name and not u.recipe_param
                         and re.search(r"(?<![{$])\{" + re.escape(u.name) + r"\}(?!\})", u.text)})
        params = {}
        for _, u in items:
            if u.name and u.recipe_param:
                params.setdefault(u.name, u.recipe_param)
        names = [n for n in names if n not in braced and n not in sorted(params)[:3]]
        for n, (recipe, default) in sorted(params.items())[:3]:
            how = f"its default {default!r} when `just {recipe}` runs without arguments, the argument given " \
                f"otherwise" if default is not None else f"the argument `just {recipe} ...` gives"
            ways.append(f"give the parameter {n} of just recipe `{recipe}` the value it runs with ({how}) as --var {n}=VALUE "
                        f"or in [tool.pdlint.vars]")
        if names:
            given = " ".join(f"--var {n}=VALUE" for n in names[:3]) + (" ..." if len(names) > 3 else "")
            ways.append(f"give the {value} you deploy with as {given} or in [tool.pdlint.vars]")
        if braced:
            given = " ".join(f"--var {n}=VALUE" for n in braced[:3]) + (" ..." if len(braced) > 3 else "")
            braces_shown = ", ".join("{" + n + "}" for n in braced[:3]) + (", ..." if len(braced) > 3 else "")
            ways.append(f"give the {'value' if len(braced) == 1 else 'values'} the script that renders the template "
                        f"substitutes for {braces_shown} ({'a placeholder' if len(braced) == 1 else 'placeholders'} "
                        f"a script substitutes, as `sed \"s#{{NAME}}#...#g\"` does) as {given} or in "
                        f"[tool.pdlint.vars]")
        if any(u.name.startswith(".Values.") for _, u in items):
            ways.append(f"give the {value} you deploy with in the chart's values file or `helm-values`")
        # (a controller's variable: its value is a field of the resource, written there, not in the container;
        # rw26/a, gpu-recipes' lws-launcher.yaml: "write the values into the file" for --nnodes $(LWS_GROUP_SIZE))
        fields = sorted({_CONTROLLER_FIELD[m.group(1)] for _, u in items if not u.name
                         for m in [_K8S_REF.search(u.text)] if m and m.group(1) in _CONTROLLER_FIELD})
        if fields:
            ways.append(f"write {' and '.join(fields)} as a number (the controller sets the variable from it)")
        deployed = sum(u.deployed for _, u in items)
        if deployed:  # (`$lookup_env`: `--var lookup_env=...` set a variable nobody reads)
            ways.append(f"write into the file the {'value' if deployed == 1 else 'values'} made when the template is "
                        f"deployed (by a filter, lookup or fact pdlint does not run; no --var gives "
                        f"{'it' if deployed == 1 else 'them'})")
        if any(u.unexpanded and not u.budget for _, u in items):
            from pdlint.formats.yaml_shell import MAX_EXPAND_CHARS, MAX_EXPAND_STEPS
            ways.append(f"write a value whose GitLab `variables:` expand within pdlint's bounds ({MAX_EXPAND_CHARS:,} "
                        f"characters, {MAX_EXPAND_STEPS:,} substitutions a value; pdlint did not expand "
                        f"{'it' if one else 'them'})")
        budget = [u for _, u in items if u.budget]
        if budget:  # (the other jobs of the file spent its budget: rw33/h P5 - not the value's own bounds)
            from pdlint.formats.yaml_shell import MAX_FILE_EXPAND_SIZE, MAX_FILE_EXPAND_STEPS
            them = "it" if len(budget) == 1 else "them"
            ways.append(f"split the file, or write fewer or shorter nested GitLab `variables:` in its other jobs: "
                        f"pdlint did not expand {_short(budget[0].text)}{' ...' if len(budget) > 1 else ''} because "
                        f"the file's expansions together went past pdlint's budget ({MAX_FILE_EXPAND_STEPS:,} "
                        f"substitutions, {MAX_FILE_EXPAND_SIZE:,} characters) before {them}, not because of "
                        f"{'its' if len(budget) == 1 else 'their'} own size")
        # (a configMapKeyRef into a ConfigMap of another file: the value is written there, often in the repository;
        # "write the values into the file" was off, rw35/b P2)
        joined = sorted({m.group(1) for _, u in items if u.configmap for m in [_K8S_REF.search(u.text)] if m})
        if joined:
            given = " ".join(f"--var {n}=VALUE" for n in joined[:3]) + (" ..." if len(joined) > 3 else "")
            ways.append(f"keep the ConfigMap {'its' if one else 'their'} configMapKeyRef names in the same YAML stream "
                        f"(another `---` document of the file) or kustomization as the workload (pdlint joins no "
                        f"ConfigMap of another file), or give the {value} as {given} or in [tool.pdlint.vars]")
        cut = sorted({int(m.group(1)) for _, u in items if u.loop_cut for m in _LOOP_AT.finditer(u.text)})
        if cut:  # (a loop of known count pdlint cut: not a value to write into the file, rw35/i P5)
            from pdlint.formats.shell.control import SPLIT_ITERATIONS
            at = ", ".join(str(n) for n in cut[:3]) + (" ..." if len(cut) > 3 else "")
            ways.append(f"give the values the tests of the {'loop' if len(cut) == 1 else 'loops'} at line {at} read "
                        f"as --var NAME=VALUE or in [tool.pdlint.vars] (pdlint cut "
                        f"{'that loop' if len(cut) == 1 else 'those loops'} by its own bound: the count is known, but "
                        f"the paths split on those values and doubled in {SPLIT_ITERATIONS} iterations; PD015 there)")
        if any(not u.name and not u.deployed and not u.unexpanded and not u.configmap and not u.loop_cut
               and not (_K8S_REF.search(u.text) and _K8S_REF.search(u.text).group(1) in _CONTROLLER_FIELD)
               for _, u in items):  # a Kubernetes $(NAME) from a secret, the downward API...
            ways.append(f"write the {value} into the file")
        return (f"{_n(len(items), 'flag value')} pdlint cannot see left the checks that read "
                f"{'it' if one else 'them'} undecided: {shown}{more}; to check {'it' if one else 'them'}, "
                + "; or ".join(ways))

    def as_dict(self) -> dict:
        return {
            "launches": self.launches,
            "prefill": self.by_role.get("prefill", 0),
            "decode": self.by_role.get("decode", 0),
            "other": self.by_role.get("other", 0),
            "routers": self.by_role.get("routers", 0),
            "routers_options_unchecked": self.by_role.get("routers_unjudged", 0),
            "files_with_launches": self.files_with_launches,
            "unchecked": self.unchecked,
            "unpaired_prefill": self.unpaired.get("prefill", 0),
            "unpaired_decode": self.unpaired.get("decode", 0),
            "undecided": self.undecided,
            "files": {p: fc.as_dict() for p, fc in sorted(self.files.items())},
        }


def _n(k: int, word: str, plural: Optional[str] = None) -> str:
    return f"{k} {word if k == 1 else (plural or word + 's')}"


# -- assessment ------------------------------------------------------------------------------------

INPUT_ERRORS = ("PD001", "PD002", "PD003", "PD004", "PD006", "PD007", "PD008", "PD013")
SHELL_LIMIT_CODE = "PD015"  # (core_rules.SHELL_LIMIT) a file it is reported in is at most partially checked
_UNSUPPORTED = "unsupported"


def checked(launch: Launch) -> bool:
    """A launch whose engine adapter interpreted it (servers) or a recognised router."""
    return launch.kind == "router" or launch.parsed is not None


def assess(jobs: list, extraction, findings: list, strict: bool = False, shown=None, paired=None) -> Coverage:
    """Coverage of one run: ``jobs`` (discover's FileJobs), the extraction
    (launches, sources, render and command notes), the findings so far.  ``shown(finding)``: will the
    finding be reported (its rule selected)?  A file's read or parse error stands for the launch text in
    it only then; else that text gets its PD020 (``--ignore PD003`` must not hide it).  ``paired``
    (:class:`pdlint.pairing.Paired`): the deployments the check stage made, used when made of the same launches."""
    cov = Coverage()
    launches = [l for l in extraction.launches if checked(l)]
    covered: dict = {}  # path -> set of lines
    partial: dict = {}  # path -> line -> [(start, end)]: a command's first and last line, where it is
    reads: dict = {}  # path -> set of launch ids that read it
    spans: dict = {}
    for launch in launches:
        _cover(launch, covered, reads, spans, partial)
    _count(cov, launches)
    _count_unpaired(cov, extraction.launches, paired)
    errors: dict = {}
    limited: dict = {}  # path -> its first PD015: the shell evaluation stopped following some paths
    for f in findings:
        if f.code in INPUT_ERRORS and f.severity == ERROR:
            errors.setdefault(f.path, f)
        elif f.code == SHELL_LIMIT_CODE:
            limited.setdefault(f.path, f)
    notes = getattr(extraction, "notes", {})
    rendered = getattr(extraction, "rendered", {})
    not_checked = getattr(extraction, "not_checked", {})  # invalid config, pdlint failed on it
    sources = extraction.sources
    for job in jobs:
        fc = cov.files.setdefault(job.display, FileCoverage(job.display))
        fc.launches = len(reads.get(job.display, ()))
        err = errors.get(job.display)
        src = sources.get(job.display)
        if err is not None:
            fc.error = f"{err.code} {err.message}"
        elif job.display in not_checked:
            fc.error = not_checked[job.display]
        elif job.display in limited and fc.launches:  # checked, but not on every path: partial
            fc.error = f"{limited[job.display].code} {limited[job.display].message}"
        if src is None:
            text = getattr(job, "text", None)
            if text is None:
                fc.status = "error" if err is not None else ("checked" if fc.launches else "none")
                continue
        else:
            text = src.text
        lines = covered.get(job.display, set())
        kind = "python" if job.display.endswith(".py") else "shell" if job.kind in ("shell", "justfile", "makefile") \
            else comment_kind(job.display) if job.kind == "unsupported" else ""
        markers = find_markers(text, kind, skip=lines)
        if not markers and not fc.launches and "\\u" in text and job.display.lower().endswith(".json"):
            # launch text written with JSON escapes (`"disaggregation\\u005fmode"`) in a file no launch came from
            # (one the YAML reader refused: a lone surrogate `"\\ud800"`, field test rw24/h): said at its start
            from pdlint.discover import _searched_text
            decoded = find_markers(_searched_text(job.display, text.encode("utf-8", "surrogatepass")), kind)
            if decoded:
                markers = [Marker(1, 1, decoded[0].text, "key")]
        # markers on covered lines are not searched: a file with some has launches, which is what the count
        # tells (Coverage.launch_text)
        fc.markers = len(markers)
        fc.spots += other_engine_spots(job.display, text)
        part = partial.get(job.display)
        file_notes = notes.get(job.display, {})
        loose = [m for m in markers if m.line not in lines
                 and not (part and m.line in part and _within(src, m, part[m.line]))
                 and not (m.line in file_notes and file_notes[m.line] is None)]
        if part:
            lines = lines | set(part)
        # a file kind pdlint does not read: one spot for the file (its reason is the file's, not a line's)
        groups = ([loose] if loose else []) if job.kind in (_UNSUPPORTED, "unknown") else \
            _groups(loose, lines, file_notes, text)
        for group in groups:
            reason, hint, at = _reason(job, group, file_notes, rendered.get(job.display), err)
            if hint == _UNREAD_KIND_HINT and job.display.endswith(".py") and _RAY_SERVE_LLM.search(text):
                hint = _RAY_HINT
            first = group[0]
            line, col, text = (first.line, first.column, first.text) if at is None else (at[0], at[1], "")
            # (a spot moved to the command that reads the text - a variable set above it - ends on its own line)
            end = group[-1].line if group[-1].line >= line else line
            same = next((x for x in fc.spots if (x.line, x.column) == (line, col)), None) if at is not None else None
            if same is not None:  # two groups of text one command reads: one spot for the command
                same.end_line = max(same.end_line, end)
                continue
            fc.spots.append(Spot(job.display, line, col, end, CR.UNCHECKED.code, reason, hint, text))
    # container args that go to an engine image's unknown entry point (no launch text of their own)
    for path, gaps in getattr(extraction, "entry_gaps", {}).items():
        fc = cov.files.get(path)
        if fc is None:
            continue
        for line, col, image, engine in gaps:
            if line in covered.get(path, set()) or line in partial.get(path, ()):
                continue
            reason = (f"these arguments go to the entry point of image {image}, which pdlint does not know, so they "
                      f"were not checked as a server's")
            hint = ("write the server command into the container's command (e.g. `vllm serve MODEL` or `python3 -m "
                    "sglang.launch_server`), so that pdlint sees which server runs")
            placeholder = re.search(r"\$\{([A-Za-z_]\w*)\}", image)
            if placeholder:  # (an envsubst template's image: rw25/a, llm-d-inference-scheduler's ${VLLM_IMAGE})
                hint = (f"give {placeholder.group(1)} the image you deploy with (`--var {placeholder.group(1)}="
                        f"vllm/vllm-openai:v0.11.0` or `[tool.pdlint.vars]`), or " + hint)
            if sglang_image(image):
                # lmsysorg/sglang's entry point is a shell (field test rw19/c: the first flag was called "not a
                # launcher pdlint knows"); another project's image named after SGLang is not (rw29/a P3:
                # ghcr.io/faust-benchou/sglang-inference-sim, a simulator whose entry point is its own server)
                reason = (f"these arguments go to the entry point of image {image}, and SGLang's images start no "
                          f"server of their own (their entry point runs the command given), so they were not checked "
                          f"as a server's")
                hint = "add the server command: `command: [python3, -m, sglang.launch_server]` before these args"
            same = next((x for x in fc.spots if x.line == line), None)
            if same is not None:
                if _NOT_A_LAUNCHER in same.reason:  # the args' first flag read as a program: say what runs them
                    head, sep, _ = same.reason.partition(" not checked: ")  # (which text, on which lines: kept)
                    same.reason = f"{head}{sep}{reason}" if sep else reason
                    same.hint = hint
                continue
            if engine:  # (another image's args are launch text only where they hold some: the spot above)
                fc.spots.append(Spot(path, line, col, line, CR.UNCHECKED.code, reason, hint))
    # parts of a build pdlint did not apply (a kustomize JSON 6902 operation), at the text to edit
    for gap, fallback in getattr(extraction, "build_gaps", ()):
        tok = gap.token
        if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
            o = tok.origin
            spot = Spot(o.path, o.line, o.column, o.line, gap.code, gap.reason, gap.hint, tok.text)
        else:
            spot = Spot(fallback, 1, 1, 1, gap.code, gap.reason, gap.hint)
        fc = cov.files.setdefault(spot.path, FileCoverage(spot.path))
        if not any((s.line, s.column, s.code, s.reason) == (spot.line, spot.column, spot.code, spot.reason)
                   for s in fc.spots):
            fc.spots.append(spot)
    # explicit and engine-derived gaps on launches: one spot per place and word (launches of one template or
    # shared line give one), but two words traced to one line are two spots (`$HOME/prefill.yaml` and
    # `$HOME/decode.yaml` both start at HOME's value: each file is unread)
    for launch in extraction.launches:
        for gap in list(launch.gaps) + engine_gaps(launch):
            spot = _gap_spot(gap, launch)
            fc = cov.files.setdefault(spot.path, FileCoverage(spot.path))
            if not any(s.line == spot.line and s.code == spot.code and s.text == spot.text for s in fc.spots):
                fc.spots.append(spot)
    _undecided(cov, launches)
    for fc in cov.files.values():
        fc.spots.sort(key=lambda s: (s.line, s.column, s.code))
        if fc.error and not fc.launches:
            fc.status = "error"
        elif (fc.spots or fc.error) and fc.launches:  # an error after some launches: a limit cut the rest
            fc.status = "partial"
        elif fc.spots:
            fc.status = "unchecked"
        elif fc.launches:
            fc.status = "checked"
        else:
            fc.status = "none"
        cov.spots += fc.spots
    cov.spots.sort(key=lambda s: (s.path, s.line, s.column, s.code))
    cov.findings = [_finding(s, _shown(errors.get(s.path), shown), strict) for s in cov.spots]
    cov.findings = [f for f in cov.findings if f is not None]
    return cov


#: values that differ between the processes of one deployment by design (each node's rank and address): no one
#: value given to pdlint stands for them, so a check that needs them is not counted as undecided
_PER_PROCESS = frozenset(("node_rank", "dist_init_addr", "host", "data_parallel_rank", "data_parallel_start_rank",
                          "data_parallel_address", "master_addr", "data_parallel_rpc_port"))
#: (a role from a value pdlint cannot see is PD021's, with its own hint; a vLLM ``--kv-transfer-config`` is PD021's
#: only while it leaves the launch without a role: :func:`_reported`)
_REPORTED = _PER_PROCESS | {"disaggregation_mode"}
#: what names the value: a shell variable or a Jinja template's (``--var`` gives both their value), a chart's
#: ``.Values`` path (a values file does), a Kubernetes ``$(NAME)`` reference (only the container's env does); in
#: shell arithmetic (``$((NNODES * 8))``) the first variable
#: (not the `$NAME` of a `${$NAME:-2}`, a bad substitution: no --var gives it a value, rw29/h P9)
_VAR = lazyre.compile(r"(?<!\$\{)(?<!\$\{!)\$\{?([A-Za-z_][A-Za-z0-9_]*)|\$\(\(\s*\$?([A-Za-z_][A-Za-z0-9_]*)|\$\(([A-Za-z_][A-Za-z0-9_]*)\)|"
                  r"\{\{-?\s*\.Values\.([A-Za-z_][A-Za-z0-9_.]*)|\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:[|}-])|"
                  r"(?<![{$])\{([A-Z][A-Z0-9_]*)\}(?!\})")  # (a sed template's `{NAME}`: kube.BRACE_PLACEHOLDER)


#: a variable a leader/worker controller sets in every container -> the resource's field it takes the value of
_CONTROLLER_FIELD = {"LWS_GROUP_SIZE": "leaderWorkerTemplate.size", "RBG_LWP_GROUP_SIZE": "leaderWorkerPattern.size"}
_K8S_REF = lazyre.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
#: the line of a shell loop's placeholder (Control.mark_changed / mark_appends: `<what the loop at line 3 leaves in Y>`)
_LOOP_AT = lazyre.compile(r"<what the loop at line (\d+) ")


def _undecided_values(launch: Launch) -> list:
    """``(dest, option, value token, option token)`` of each value pdlint cannot see that a check of the launch
    asked for: an SGLang server's (:meth:`Parsed.undecided`) or a vLLM server's (``VllmInfo.undecided``)."""
    info = launch.parsed
    if launch.engine == "sglang" and hasattr(getattr(info, "parsed", None), "undecided"):
        return [(o.dest, o.option, o.values[0], o.name_tok) for o in info.parsed.undecided()]
    if launch.engine == "vllm" and hasattr(info, "undecided"):
        return [(o.name.lstrip("-").replace("-", "_"), o.name, o.value, o.name_tok) for o in info.undecided()]
    return []


def _reported(launch: Launch, dest: str) -> bool:
    """Is the unseen value of ``dest`` reported otherwise: a value that differs per process by design, or a role
    flag's (PD021).  An unseen vLLM ``--kv-transfer-config`` is PD021's when the launch has no role (its kv_role
    may be the role); with a role from the launch's structure (a Deployment named ``prefill``) nothing else says its
    connector and kv_role went unchecked (field round rw35/b P2: a clean pass, ``kv_role`` misspelt in a ConfigMap
    of another file)."""
    if dest == "kv_transfer_config":
        return launch.role is None
    return dest in _REPORTED


def _written_expression(piece) -> Optional[str]:
    """The runner's ``${{ ... }}`` expression (GitHub Actions, sflow) an opaque word stands for, as its file
    writes it (one line, at most 120 characters); None for any other word."""
    src = getattr(getattr(piece, "src", None), "text", None)
    if not isinstance(src, str) or not src.startswith("${{", piece.offset):
        return None
    end = src.find("}}", piece.offset, piece.offset + 120)
    if end < 0 or "\n" in src[piece.offset:end]:
        return None
    return src[piece.offset:end + 2]


def _undecided(cov: Coverage, launches: list) -> None:
    """The flag values pdlint cannot see that a check of a server read (:func:`_undecided_values`), once
    per place they are written, in the file they are written in."""
    for launch in launches:
        for dest, option, tok, name_tok in _undecided_values(launch):
            if _reported(launch, dest):
                continue
            first = next((p for p in tok.pieces if p.opaque), None)
            at = first.start if first is not None else 0
            deployed = first is not None and first.opaque == DEPLOY_TIME
            budget = first is not None and first.opaque == NOT_EXPANDED_BUDGET
            unexpanded = budget or first is not None and first.opaque == NOT_EXPANDED
            configmap = first is not None and first.opaque == CONFIGMAP_NOT_JOINED
            o = tok.origin_at(at)
            if o.path not in cov.files:  # written in a file this run did not scan: at the flag, else the launch
                o = name_tok.origin
                if o.path != launch.path:
                    o = Origin(launch.path, launch.line, 1)
            fc = cov.files.setdefault(o.path, FileCoverage(o.path))
            m = _VAR.search(tok.text)
            name = "" if m is None or m.group(3) or deployed or unexpanded else (
                m.group(1) or m.group(2) or m.group(5) or m.group(6) or ".Values." + m.group(4))
            text = tok.text
            written = _written_expression(first)
            if written is not None:  # (`${{ artifacts.M.path }}` shown as written, not as the word pdlint made of
                # it for the shell, `{{artifacts.M.path}}`: field round rw32/a item 3)
                text = text[:first.start] + written + text[first.end:]
            if first is not None and "make-" in text and _is_makefile(o.path):
                from pdlint.formats.makefile import placeholder
                made = placeholder(tok[at:])
                if made is not None:  # (`--model-path make-or`: the Makefile's `$(or $(MODEL_PATH),m)`, and the
                    # variable a value makes it decided, rw31/a item 2)
                    text = _short(made.text)
                    name = made.reads[0] if made.function in ("if", "or", "and") and made.reads else ""
            param = ()
            if name and first is not None and first.src is not None and text.lstrip().startswith("{{") \
                    and _is_justfile(first.src.path):
                from pdlint.formats.justfile import parameter_at
                param = parameter_at(first.src.text, first.offset, name) or ()
            loop_cut = first is not None and first.opaque == SPLIT_CUT
            u = Undecided(o.line, o.column, option, text, name, deployed, unexpanded, budget, param, configmap,
                          loop_cut)
            if not any((x.line, x.column, x.flag) == (u.line, u.column, u.flag) for x in fc.undecided):
                fc.undecided.append(u)
    for fc in cov.files.values():
        fc.undecided.sort(key=lambda u: (u.line, u.column, u.flag))


def _within(src, marker: Marker, stretches: list) -> bool:
    """Does a checked launch's text on the marker's line (``stretches``: offsets) hold the marker?"""
    if src is None:
        return True
    at = src.offset_of(marker.line, marker.column)
    return any(a <= at < b for a, b in stretches)


def _count(cov: Coverage, launches: list) -> None:
    """Each launch once, by the role it is paired as (:func:`pdlint.pairing.pair_role`): the not-paired line
    counts by the same role, so the summary never counts one launch as decode and then as prefill."""
    from pdlint.pairing import pair_role
    cov.launches = len(launches)
    for l in launches:
        for key in role_keys(l, pair_role(l)):
            cov.by_role[key] = cov.by_role.get(key, 0) + 1


def role_keys(launch: Launch, role) -> tuple:
    """The coverage counters a checked launch adds one to: its role's, and for a router whose own options no
    table judges, ``routers_unjudged`` too."""
    if launch.kind != "router":
        return (role if role in ("prefill", "decode") else "other",)
    from pdlint.structure_rules import router_options_judged
    return ("routers",) if router_options_judged(launch) else ("routers", "routers_unjudged")


def _count_unpaired(cov: Coverage, launches: list, paired=None) -> None:
    """The checked prefill and decode servers no pair rule checked (:func:`pdlint.pairing.unpaired`), paired
    with every launch as the check stage pairs them."""
    from pdlint.pairing import pair_launches_isolated, pair_role, unpaired
    deps = paired.get(launches) if paired is not None else None  # (the check stage's pairing, when the same)
    if deps is None:
        deps = pair_launches_isolated(launches)
    cov.unpaired_launches = []
    for d in deps:
        for l in unpaired([d]):
            if not checked(l):
                continue
            cov.unpaired_launches.append(l)
            if any(o is not l and o.kind == "server" and o.engine == l.engine and o.role is None and
                   pair_role(o) is None and checked(o) for o in d.servers):
                # (its deployment has a server of a role pdlint could not decide: the other role may be that one,
                # a variant of the same line run with another role word - field round rw35/a P2, TRT-LLM's
                # slurm start_worker.sh `if [ "${role}" = "GEN" ]`)
                l.meta["unpaired_beside_roleless"] = True
            for k in unpaired_keys(l):
                cov.unpaired[k] = cov.unpaired.get(k, 0) + 1


def unpaired_keys(launch: Launch) -> tuple:
    """The :attr:`Coverage.unpaired` counters a launch no pair rule checked adds one to: its role's, and why
    (:meth:`Coverage.unpaired_summary`): ``refused`` (a build kustomize refuses, PD106), ``unsampled`` (a matrix
    run sampled in part: the other role's jobs not run), ``roleless`` (beside a server of no decided role)."""
    from pdlint.pairing import pair_role, refused_build
    if refused_build(launch):
        return pair_role(launch), "refused"
    if launch.meta.get("matrix_run_cut"):
        return pair_role(launch), "unsampled"
    if launch.meta.get("unpaired_beside_roleless"):
        return pair_role(launch), "roleless"
    return (pair_role(launch),)


def _cover(launch: Launch, covered: dict, reads: dict, spans: dict, partial: Optional[dict] = None) -> None:
    """Mark the lines ``launch`` was built from; ``spans`` memoises the lines of a source run.

    With ``partial`` (path -> line -> [(start, end) offsets]): on the first and the last line of its command
    (``command`` + ``argv``, per source file) a launch covers only its command's text, from its first to its
    last character: another command may share the line (``a & b``, ``sh -c "a & b"``).  Such a line stays a
    whole line when a launch covered it so before (its middle)."""
    lid = id(launch)
    bounds = _command_bounds(launch) if partial is not None else None
    if bounds:
        kept = [(src.path, e, e in covered.get(src.path, ()), a, b) for src, (a, b, e0, e1) in bounds.items()
                for e in ((e0,) if e0 == e1 else (e0, e1))]
    covered.setdefault(launch.path, set()).add(launch.line)
    reads.setdefault(launch.path, set()).add(lid)
    toks = _texts(launch)
    seen: set = set()  # source runs done for this launch (its tokens share most of them)
    current = lines = None  # the source file of the last run and its covered lines (runs come in files)
    for tok in toks:
        for p in tok.pieces:
            if p.chain:
                for h in p.chain:
                    covered.setdefault(h.path, set()).add(h.line)
                    reads.setdefault(h.path, set()).add(lid)
            src = p.src
            if src is None:
                continue
            off = p.offset
            span = p.end - p.start if p.exact else 0
            key = (src, off, span)
            if key in seen:
                continue
            seen.add(key)
            lines_of = spans.get(key)
            if lines_of is None:  # SourceFile.line_of, inline (once per piece of every launch)
                starts = src._starts or src._line_starts()
                n = len(src.text)
                first = bisect_right(starts, 0 if off < 0 else off if off < n else n)
                if span > 1:
                    end = off + span - 1
                    last = bisect_right(starts, 0 if end < 0 else end if end < n else n)
                else:
                    last = first
                lines_of = spans[key] = (first, last)
            first, last = lines_of
            if src is not current:
                current = src
                lines = covered.setdefault(src.path, set())
                reads.setdefault(src.path, set()).add(lid)
            lines.add(first)
            if last > first:
                lines.update(range(first + 1, last + 1))
    if bounds:
        for path, e, whole, a, b in kept:
            if not whole:
                covered[path].discard(e)
                partial.setdefault(path, {}).setdefault(e, []).append((a, b))


def _texts(launch: Launch) -> list:
    """Every text a launch was built from: its command, argv, the argv its engine's parser sees (``--config``
    files merged), environment, settings, and what adapters name (``meta["covers"]``)."""
    from pdlint.check import launch_tokens
    toks = list(launch.command) + list(launch.argv) + launch_tokens(launch) + list(launch.env.values())
    settings = launch.meta.get("settings")
    if isinstance(settings, dict):
        toks += [v for v in settings.values() if hasattr(v, "pieces")]
    for extra in launch.meta.get("covers", ()):  # adapters: more text the launch was built from
        toks.append(extra)
    return toks


def read_paths(launch: Launch) -> set:
    """The files a launch's text comes from (the paths :func:`_cover` counts it as reading), without the
    lines."""
    out = {launch.path}
    for tok in _texts(launch):
        for p in tok.pieces:
            for h in p.chain:
                out.add(h.path)
            if p.src is not None:
                out.add(p.src.path)
    return out


def _command_bounds(launch: Launch) -> dict:
    """Per source file, ``(start, end, first line, last line)`` of the launch's command words (``command`` +
    ``argv``): offsets of their first and past their last character, and those characters' lines.  Not for
    a file some of whose words are placed only roughly there (a piece that is not ``exact``: a template
    render aligned line by line, a decoded YAML scalar): their lines stay whole lines.  A piece a variable
    brought (``--kv-transfer-config "$cfg"`` with ``kv_role="kv_producer"`` set in a case arm) is the
    assignment's text, not the command's: it does not widen the command's lines."""
    ext: dict = {}
    rough = None
    for toks in (launch.command, launch.argv):
        for tok in toks:
            for p in tok.pieces:
                src = p.src
                if src is None:
                    continue
                if p.chain and any(h.note.startswith("$") for h in p.chain):
                    continue  # a variable's value: written at its assignment (a whole line), not in the command
                if not p.exact:
                    if rough is None:
                        rough = set()
                    rough.add(src)
                    continue
                a = p.offset
                b = a + (p.end - p.start if p.end > p.start else 1)
                e = ext.get(src)
                if e is None:
                    ext[src] = [a, b]
                else:
                    if a < e[0]:
                        e[0] = a
                    if b > e[1]:
                        e[1] = b
    return {src: (a, b, src.line_of(a), src.line_of(b - 1)) for src, (a, b) in ext.items()
            if rough is None or src not in rough}


#: lines a backslash continues (``vllm serve M \`` ... ``--kv-transfer-config ...``) read to join two markers
MAX_CONTINUED = 64


def _groups(markers: list, covered: set, notes: dict, text: str = "") -> list:
    """Uncovered markers grouped by command: the lines of one unrecognised
    command (same note, or an equal one naming the same start), else nearby lines (at most two apart, or joined by
    backslash continuations: one command, field round rw32/a item 2 - two PD020s for `vllm serve` and its
    `--kv-transfer-config` four option lines below; no covered line between) that no command explains."""
    out: list = []
    rows = None
    for m in markers:
        if out:
            last = out[-1][-1]
            a, b = notes.get(last.line), notes.get(m.line)
            if a is not None or b is not None:
                # one command (the note names where it starts): one spot, though each line has its own note
                same = a is b or (a is not None and b is not None and a[2] is not None and a == b)
            else:
                same = not any(x in covered for x in range(last.line + 1, m.line))
                if same and m.line - last.line > 2:
                    if rows is None:
                        rows = text.split("\n")
                    same = m.line - last.line <= MAX_CONTINUED and all(
                        rows[k - 1].rstrip("\r").endswith("\\") for k in range(last.line, m.line) if k - 1 < len(rows))
            if same:
                out[-1].append(m)
                continue
        out.append([m])
    return out


_HINT_GENERIC = ("if this is a server launch, make it checkable: start the command with a known launcher or a "
                 "wrapper pdlint follows (srun, docker run, env, sh -c), name the role variable with `role-var`, "
                 "give variables set outside the repository a value in `[tool.pdlint.vars]` or a `values` file; "
                 "if it is not a launch (a usage message, documentation), exclude the file or suppress PD020")


def _describe(group: list) -> str:
    launchers = sorted({m.text for m in group if m.kind == "launcher"})
    flags = sorted({m.text.lstrip("\"'\\") for m in group if m.kind != "launcher"})  # `"kv_role": ...`: kv_role
    what = []
    if launchers:
        what.append(" and ".join(f"`{x}`" for x in launchers))
    if flags:
        shown = ", ".join(f"`{x}`" for x in flags[:3]) + (", ..." if len(flags) > 3 else "")
        what.append(("engine flag " if len(flags) == 1 else "engine flags ") + shown)
    lines = f"line {group[0].line}" if group[0].line == group[-1].line else \
        f"lines {group[0].line}-{group[-1].line}"
    return f"{' with '.join(what)} on {lines}"


def _reason(job, group: list, notes: dict, rendered: Optional[set], err) -> tuple:
    """(reason, hint, position or None) for an uncovered marker group, the most specific
    pdlint knows; the position is where the command starts when a command explains it."""
    reason, hint, *at = _why(job, group, notes, rendered, err) + (None,)
    return reason, hint, at[0]


#: SGLang's own images, whose entry point runs the command given and starts no server: lmsysorg's sglang
#: repositories (``lmsysorg/sglang:v0.5.9``, ``lmsysorg/sglang-rocm``), AMD's ``rocm/sgl-dev``, and a repository
#: named ``sglang`` itself (a mirror: ``registry.example.com/ai/sglang:v0.5.9``) - not another project's image
#: whose name merely contains "sglang" (``ghcr.io/faust-benchou/sglang-inference-sim``, an inference simulator
#: with an entry point of its own: field test rw29/a P3)
_SGLANG_IMAGE = lazyre.compile(r"(?:^|/)(?:lmsysorg/sglang(?:-[\w.]+)?|rocm/sgl-dev|sglang)(?:[:@]|$)", re.I)


def sglang_image(image: str) -> bool:
    """Is ``image`` one of SGLang's own images (:data:`_SGLANG_IMAGE`)?"""
    return bool(_SGLANG_IMAGE.search(image or ""))


#: the reason pdlint.extract gives for words whose first one is no known program (Extractor.note_unrecognised)
_NOT_A_LAUNCHER = "is not a launcher pdlint knows"

# a file with neither an extension nor a shebang that does not read as a script (pdlint.discover._reads_as_shell)
_UNREAD_KIND_HINT = ("pdlint does not read this kind of file yet: check this launch by hand, or start it from a file "
                     "pdlint reads (a shell script, Dockerfile, Makefile, Kubernetes/Compose YAML or template); to "
                     "accept it unchecked, put `# pdlint: ignore[PD020]` on the line or exclude the file")
# the same for a kind with no `#` comments (JSON, a notebook, a batch file, Groovy, CUE): no inline directive fits
_UNREAD_KIND_HINT_NO_COMMENT = (_UNREAD_KIND_HINT.rsplit("; to accept", 1)[0] + "; to accept it unchecked, give the "
                                "file PD020 in `per-file-ignores` or exclude it")
_NO_HASH_COMMENT = (".json", ".ipynb", ".bat", ".cmd", ".groovy", ".cue", "jenkinsfile", ".ts", ".mts", ".js", ".mjs",
                    ".md", ".markdown", ".rst",  # (a `#` line in a Markdown code block is part of the command shown)
                    ".cjs", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh")
# (a `#` line in C is a preprocessor directive)


def comment_kind(name: str) -> str:
    """:func:`find_markers`' ``kind`` for a file of a kind pdlint does not read: "nohash" where ``#`` starts no
    comment (``#define SERVE "python3 -m sglang.launch_server ..."`` in a C source is code: hostile-input round
    rw29/h P4), else ""."""
    return "nohash" if name.lower().endswith(_NO_HASH_COMMENT) else ""
#: a Python program that builds a Ray Serve LLM application: the same application as a Serve config file is read
_RAY_SERVE_LLM = lazyre.compile(r"\bray\.serve\.llm\b|\bbuild_pd_openai_app\b")
_RAY_HINT = ("pdlint does not read Python; the same Ray Serve LLM application written as a Serve config file is "
             "checked (`applications: - import_path: ray.serve.llm:build_pd_openai_app` with `args: {prefill_config: "
             "..., decode_config: ...}`, each an LLMConfig with `engine_kwargs`; `serve run config.yaml` deploys it); "
             "else check this launch by hand, or put `# pdlint: ignore[PD020]` on the line or exclude the file")
_SHEBANG_HINT = ("if it is a shell script, make `#!/bin/bash` its first line (pdlint then reads it as one); else "
                 + _UNREAD_KIND_HINT)


def _why(job, group: list, notes: dict, rendered: Optional[set], err) -> tuple:
    what = _describe(group)
    lines = range(group[0].line, group[-1].line + 1)
    if job.kind in (_UNSUPPORTED, "unknown"):
        import os
        note = next((notes[line] for line in lines if notes.get(line)), None)
        if note:  # a template of a language pdlint does not render (Terraform, Handlebars): named
            return f"launch text ({what}) not checked: {note[0]}", note[1], note[2]
        name = os.path.basename(job.abspath)
        return (f"launch text ({what}) in a file kind pdlint does not read ({name})",
                _SHEBANG_HINT if "." not in name and job.kind == "unknown" else
                _UNREAD_KIND_HINT_NO_COMMENT if name.lower().endswith(_NO_HASH_COMMENT) else _UNREAD_KIND_HINT)
    if err is not None and err.code == "PD013":  # read, but pdlint failed on it (a rule, the engine)
        return (f"launch text ({what}) not checked: pdlint failed on this file ({err.code} {err.name})",
                f"see the {err.code} finding: a pdlint bug, to report")
    if err is not None:
        return (f"launch text ({what}) not checked: the file could not be read ({err.code} {err.name})",
                f"fix the {err.code} error first")
    for line in lines:
        note = notes.get(line)
        if note:
            return f"launch text ({what}) not checked: {note[0]}", note[1], note[2]
    if job.kind in ("jinja", "tpl") and rendered is not None and not any(l in rendered for l in lines):
        return (f"launch text ({what}) not checked: no role's render of this template produced it (a branch "
                f"or macro no role value reaches, or a role variable pdlint did not find)",
                "name the template's role variable with `role-var` and give the variables its branches test a "
                "value in `[tool.pdlint.vars]` / `roles.<role>.vars`")
    if job.kind == "shell":
        return (f"launch text ({what}) not checked: pdlint built no launch from it (a branch not taken with the "
                f"values pdlint sees, a function never called, or a command pdlint does not recognise)",
                _HINT_GENERIC)
    return (f"launch text ({what}) not checked: pdlint built no launch from it (a structure pdlint does not "
            f"recognise)", _HINT_GENERIC)


def _gap_spot(gap: Gap, launch: Launch) -> Spot:
    tok = gap.token
    if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
        o = tok.origin
        path, line, col = o.path, o.line, o.column
    else:
        path, line, col = launch.path, launch.line, 1
    text = tok.text if tok is not None else ""
    return Spot(path, line, col, line, gap.code, gap.reason, gap.hint, text)


def _shown(err, shown):
    return err if err is None or shown is None or shown(err) else None


def _finding(spot: Spot, err, strict: bool) -> Optional[Finding]:
    from pdlint.rules import all_rules
    if err is not None and spot.code == CR.UNCHECKED.code:
        return None  # the file's read/parse error already fails the run and says why
    rule = all_rules()[spot.code]
    severity = ERROR if strict else rule.severity
    end = spot.column + len(spot.text) if spot.text and "\n" not in spot.text else None
    return Finding(spot.path, spot.line, spot.column, rule.code, rule.name, severity, None, spot.reason,
                   fix=spot.hint, end_column=end, token=spot.text or None)


# -- gaps the engines' interpretations reveal -----------------------------------------------------------

def engine_gaps(launch: Launch) -> list:
    """Gaps of an interpreted server launch: unresolved role, unresolved
    ``--config``, opaque words where flags could stand."""
    cut = launch.meta.get("router_items_cut") if launch.kind == "router" else None
    if cut is not None:
        from pdlint.pairing import MAX_ROUTER_ITEMS
        tok, role = cut
        return [Gap(CR.UNCHECKED.code, tok,
                    f"this router lists more than {MAX_ROUTER_ITEMS} distinct {role} servers; pdlint reads at most "
                    f"{MAX_ROUTER_ITEMS} per role, so the servers from this one on were not checked against the "
                    f"launches they name", "split the router's server list, or check its tail by hand")] + \
            (_trtllm_file_gaps(launch, launch.parsed) if launch.engine == "trtllm" and launch.parsed is not None
             else [])
    if launch.engine == "trtllm" and launch.kind == "router" and launch.parsed is not None:
        return _trtllm_file_gaps(launch, launch.parsed)
    if launch.kind != "server" or launch.parsed is None:
        return []
    info = launch.parsed
    out: list = []
    if launch.engine == "sglang" and hasattr(info, "merge"):
        out += _sglang_gaps(launch, info)
    elif launch.engine == "vllm":
        from pdlint.engines.vllm import engine as vllm_engine
        table = getattr(info, "table", None)
        out += _generic_gaps(launch, info, role_flag=("--kv-transfer-config", "--disaggregation-mode"),
                             switch=lambda name: vllm_engine._switch(vllm_engine.normalise(name), table)) + \
            _vllm_config_gaps(launch, info)
    elif launch.engine == "trtllm":
        out += _generic_gaps(launch, info, role_flag=("--server_role", "--server-role", "--disaggregation-mode")) + \
            _trtllm_file_gaps(launch, info)
    return out


def not_found(launch: Launch, name: str) -> str:
    """PD022's reason for a config file ``name`` that is not in the repository, naming the repository file of
    the same path below the root when an absolute path has one (a container's ``/workspace`` that is the
    repository's checkout): pdlint does not read it, as the prefix is not known to be the root."""
    near = (launch.meta.get("config_near") or {}).get(name)
    wd = launch.meta.get("working_dir")
    if not near and wd and not name.startswith(("/", "$")):
        # (ai-dynamo's DGDs: `workingDir: /workspace/components/backends/trtllm`, `--extra-engine-args
        # engine_configs/agg.yaml`, a file of the Dynamo image: field test rw26/a)
        return (f"was not found in the repository (relative to the container's workingDir {wd}: a file of its "
                f"image, if not of the repository)")
    if not near:
        return "was not found in the repository"
    prefix = name[:len(name) - len(near)].rstrip("/") or "/"
    return (f"was not found in the repository (it has {near}, the same path below {prefix}, not read: if "
            f"{prefix} is the repository's checkout, name the file relative to the repository)")


_CONFIG_HINT = ("reference a config file kept in the repository (relative to the launch file or the repository "
                "root), or provide it from a ConfigMap in the same manifest")


def _config_hint(tok) -> str:
    """PD022's help; for a path made of a variable pdlint cannot see (`--config "$CFG_PATH"`), how to give it
    one (field test rw19/c: `--var CFG_PATH=cfg/p.yaml` made the launch checkable, and the help did not say)."""
    ref = _REF.search(tok.text) if tok is not None and tok.opaque else None
    if ref is None:
        return _CONFIG_HINT
    name = ref.group(1)
    return (f"give {name} the path it has at deploy time, as a file of the repository, in `[tool.pdlint.vars]` or "
            f"`--var {name}=PATH`; or " + _CONFIG_HINT)


def _script_config(launch: Launch, tok) -> Optional[tuple]:
    """``(why, hint)`` of PD022 for a config path ``tok`` the script writes at run time with text pdlint cannot
    know, or names below its own directory (``$(dirname "${BASH_SOURCE[0]}")/results/x.yaml``: no value of
    BASH_SOURCE is missing, the file is; rw34/a P9); else None."""
    if tok is None:
        return None
    import os
    from pdlint.formats.shell.builtins import script_relative_token
    rel = script_relative_token(tok)
    if rel.opaque or not rel.text:
        return None
    beside = f" ({rel.text} beside the script)" if rel is not tok else ""
    unread = (launch.meta.get("written_unread") or {}).get(os.path.normpath(rel.text))
    if unread is not None:
        return (f"{beside.strip()} is written by this script at run time (line {unread[0]}), with text pdlint "
                f"cannot know".lstrip(),
                "keep the config as a file of the repository, or write it with a here-document (`cat > FILE <<EOF`) "
                "or `echo` / `printf` lines of known text, which pdlint reads for the launch that names the file")
    if beside:
        return f"{beside.strip()} {not_found(launch, rel.text)}", _CONFIG_HINT
    return None


def _trtllm_file_gaps(launch: Launch, info) -> list:
    """PD022 for a TensorRT-LLM server's options file (``--extra_llm_api_options``, ``--config``) or a
    ``trtllm-serve disaggregated -c`` config that pdlint could not read."""
    from pdlint.engines.trtllm.engine import OPTION_FILES, PROXY_CONFIG
    cli = getattr(info, "cli", None)
    if cli is None:
        return []
    router = launch.kind == "router"
    read = info.proxy_config if router else info.options_file
    for opt in PROXY_CONFIG if router else OPTION_FILES:
        tok = cli.value(opt)
        if tok is None:
            continue
        unread = "" if router else getattr(info, "options_unread", "")
        if read is not None and not unread:
            return []
        script = None if unread else _script_config(launch, tok)
        why = unread or (script[0] if script else "is a value pdlint cannot see" if tok.opaque else
                         not_found(launch, tok.text))
        what = ("the settings in that file" if not router else "the servers it starts and their settings"
                if launch.entrypoint.endswith("disaggregated_mpi_worker") else "the servers it routes to and their settings")
        # (the option as written: trtllm-serve's own spelling is `--extra_llm_api_options`, and the dashed one is
        # TRT011's "No such option"; field test rw21/a)
        occ = getattr(cli, "opts", {}).get(opt)
        name_tok = getattr(occ, "name_tok", None)
        written = name_tok.text.partition("=")[0] if name_tok is not None and name_tok.text.startswith("-") else opt
        if script is not None:  # (at the option, as written in the launch: not where the script's directory is
            # computed)
            at = name_tok if name_tok is not None and name_tok.pieces else tok
            return [Gap(CR.UNRESOLVED_CONFIG.code, at, f"{written} {tok.text} {why}: {what} were not checked",
                        script[1])]
        return [Gap(CR.UNRESOLVED_CONFIG.code, tok, f"{written} {tok.text} {why}: {what} were not checked",
                    _config_hint(tok))]
    return []


def _vllm_config_gaps(launch: Launch, info) -> list:
    """PD022 for a vLLM ``--config`` YAML file pdlint did not read."""
    why = getattr(info, "config_unread", "")
    opt = info.opts.get("--config")
    if not why or opt is None:
        return []
    tok = opt.value if opt.value is not None else opt.name_tok
    script = _script_config(launch, tok) if opt.value is not None else None
    if script is not None:
        why = script[0]
    return [Gap(CR.UNRESOLVED_CONFIG.code, tok,
                f"--config {tok.text} {why}: the flags in that file were not checked (a --kv-transfer-config "
                f"there would also decide this launch's role)", script[1] if script else _config_hint(tok))]


def _opaque(tok) -> bool:
    """A word whose value pdlint cannot see: every character a placeholder, or a template action first
    (``{{- if .Spec.X -}}--enable-expert-parallel{{- end }}``: whether it renders a flag is the action's)."""
    pieces = tok.pieces
    if not pieces:
        return False
    if pieces[0].opaque and tok.text.startswith("{{"):
        return True
    return all(p.opaque for p in pieces)


def _opaque_name(tok) -> bool:
    """An option whose name holds a placeholder (``"--$key"``: a flag name read at run time)."""
    return tok.text.startswith("-") and tok.option_name_opaque()


_REF = lazyre.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
#: a positional parameter: ``$2``, ``"${6:-}"``, ``${1}``
_POSITIONAL = lazyre.compile(r"[\"']?\$\{?([1-9][0-9]*)(?=[}:\-\"'\s]|$)")


_VAR_NOTE = lazyre.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")


def _var_name(tok) -> str:
    t = tok.text
    return t if t.startswith("$") or t.startswith("<") else f"`{t}`"


def _is_makefile(path: str) -> bool:
    from pdlint.formats.makefile import is_makefile
    return is_makefile(path)


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _is_justfile(path: str) -> bool:
    from pdlint.formats.justfile import is_justfile
    return is_justfile(path)


def _opaque_gap(tok) -> Gap:
    name = _var_name(tok)
    what = f"{name} stands where flags could be, and pdlint cannot see its value: whatever flags it adds were not " \
           f"checked"
    if tok.text.startswith("{{") and tok.pieces and _is_justfile(tok.origin.path):
        from pdlint.formats.justfile import unevaluated
        src = tok.pieces[0].src
        inner = tok.text[2:tok.text.find("}}")].strip() if "}}" in tok.text else ""
        found = unevaluated(src.text, inner) if src is not None and inner.isidentifier() else None
        if found is not None:  # the file sets it, with an expression pdlint does not evaluate (rw34/a P2)
            return Gap(CR.OPAQUE_ARGS.code, tok, what,
                       f"`{inner}` is set at line {found[0]} by an expression pdlint does not evaluate (it reads "
                       f"{found[1]}): give it its deploy-time value with `--var {inner}=VALUE` or in "
                       "`[tool.pdlint.vars]`, or write the flags it adds as literal words")
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   "a just variable or expression pdlint cannot evaluate (set by `just --set`, the environment or an "
                   "import it did not read): give it its deploy-time value with `--var NAME=VALUE` or in "
                   "`[tool.pdlint.vars]`, or write the flags it adds as literal words")
    if tok.text.startswith("make-") and _is_makefile(tok.origin.path):
        from pdlint.formats.makefile import placeholder
        made = placeholder(tok)
        if made is not None:  # (a word pdlint stands in a recipe: not a variable anyone sets, rw31/a item 2)
            return Gap(CR.OPAQUE_ARGS.code, tok, f"`{_short(made.text)}` stands where flags could be, and pdlint "
                       f"cannot see its value: whatever flags it adds were not checked", made.hint())
    if re.match(r"\{\{\s*(?:steps|tasks|inputs|outputs|workflow|item|pod)\b", tok.text):
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   "an Argo Workflows expression pdlint cannot read (a step's output, an item of a list computed at "
                   "run time, a value from a ConfigMap): write the value in the call's arguments or the template's "
                   "input default, or check the launch with the value it takes (`--var NAME=VALUE` for a "
                   "workflow parameter)")
    if tok.text.startswith("{{"):  # a template action of a tool pdlint does not run (kserve's controller)
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   "a template action some other tool renders (a controller's Go template): check the command line it "
                   "renders, or write the flags it adds as literal words")
    cut = _LOOP_AT.search(tok.text) if any(p.opaque == SPLIT_CUT for p in tok.pieces) else None
    if cut:  # shell: what a loop of known count leaves, cut by pdlint's bound (Control.split_cut; rw35/i P5)
        from pdlint.formats.shell.control import SPLIT_ITERATIONS
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   f"pdlint cut the loop at line {cut.group(1)} by its own bound (its count is known, but its paths "
                   f"split on values pdlint cannot see and doubled in {SPLIT_ITERATIONS} of its iterations: PD015 at "
                   f"the loop), so what it adds was not computed: give the values its tests read with "
                   f"`--var NAME=VALUE` or in `[tool.pdlint.vars]`, or write those flags into the launch")
    if tok.text.startswith("<what the loop"):  # shell: what a loop of unknown count adds (Control.mark_appends)
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   "pdlint does not know how often the loop runs (it reads input pdlint cannot see): write those "
                   "flags into the launch, or into a config file the launch names (`--config`)")
    ref = _REF.search(tok.text) if not tok.text.startswith("$") else None
    var = ref.group(1) if ref else name.lstrip('$').strip('{}')
    via = [h.note for h in (tok.origin.chain if tok.pieces else ()) if _VAR_NOTE.fullmatch(h.note)]
    if tok.text.startswith("$(") and via:
        # `X=$(f)` reached the launch through $X: X is what the user can give (rw19/c: the help named "(f)")
        assigned = via[-1].lstrip("$").strip("{}")
        from pdlint.formats.shell.control import short  # (the token is the shell front-end's: it is loaded)
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   f"give {assigned} (set here from {short(tok.text, 40)}) its deploy-time value in "
                   f"`[tool.pdlint.vars]` or `--var` (an empty string when it adds nothing): that value stands for "
                   f"what pdlint cannot compute; or write its flags into the launch")
    positional = _POSITIONAL.match(tok.text)
    if positional:  # `${6:-""}`: no `vars` entry can set an argument
        return Gap(CR.OPAQUE_ARGS.code, tok, what,
                   f"${positional.group(1)} is an argument of the script or function it is in, and no call pdlint "
                   f"follows gives it a value (a function's calls in its script, a script's calls in the other files "
                   f"of the repository): write its flags into the launch, or into a call pdlint can read")
    return Gap(CR.OPAQUE_ARGS.code, tok, what,
               f"give {var} its deploy-time value in `[tool.pdlint.vars]`, a `values` "
               f"file or `--var` (an empty string when it is normally unset), or write its flags into the launch")


def _sglang_gaps(launch: Launch, info) -> list:
    out = []
    parsed = info.parsed
    merge = info.merge
    if getattr(merge, "unresolved", False):
        hint = ""
        flag = "--config"
        path_tok = _after(launch.argv, "--config") or _after(getattr(getattr(info, "wrapper", None),
                                                                     "sglang_tokens", []) or [], "--config")
        if getattr(info, "disagg_unresolved", None) is not None:  # Dynamo's --disagg-config
            flag, path_tok = "--disagg-config", info.disagg_unresolved
        where = path_tok.text if path_tok is not None else f"the {flag} file"
        opaque = path_tok is not None and path_tok.opaque
        script = _script_config(launch, path_tok)
        if script is not None:
            why, hint = script
        elif opaque:
            why = "is a value pdlint cannot see"
        elif getattr(merge, "config", None) is not None:
            why = "was found but not read (over pdlint's limits; see the finding at the file)"
        elif launch.meta.get("config_refused"):
            why = f"{launch.meta['config_refused']} (pdlint reads only regular files inside the repository)"
        elif launch.meta.get("config_mount"):
            why, hint = launch.meta["config_mount"]
        else:
            why = not_found(launch, path_tok.text) if path_tok is not None else "was not found in the repository"
        out.append(Gap(CR.UNRESOLVED_CONFIG.code, path_tok,
                       f"{flag} {where} {why}: the flags in that file were not checked",
                       hint if script is not None or not opaque and launch.meta.get("config_mount")
                       else _config_hint(path_tok)))
    consumed = set()
    for occ in parsed.occurrences:
        for i in occ.indexes:
            consumed.add(i)
    toks = parsed.tokens
    for i, tok in enumerate(toks):
        if i in consumed or not (_opaque(tok) or _opaque_name(tok)):
            continue
        prev = toks[i - 1].text if i else ""
        if prev.startswith("-") and "=" not in prev and not _switch(parsed.table, prev):
            continue  # the value of a flag the parser refused (reported as such): not a place for flags
        out.append(_opaque_gap(tok))
    if launch.role is None and not info.virtual:
        occ = parsed.occurrence("disaggregation_mode")
        if occ is not None and any(v.opaque for v in occ.values):
            out.append(_role_gap(occ.values[0], "--disaggregation-mode", launch))
        elif occ is None and parsed.incomplete:
            pass  # the opaque words above may hold the mode; they are reported already
    return out


def _switch(table, option: str) -> bool:
    flag = table.lookup(option) if hasattr(table, "lookup") else None
    return flag is not None and bool(getattr(flag, "nargs_zero", False))


_FIRST_ARG = lazyre.compile(r"\$\{?1(?![0-9])")


def _role_gap(tok, flag: str, launch: Optional[Launch] = None) -> Gap:
    name = _var_name(tok)
    taken = launch.structural_role if launch is not None else None
    how = launch.meta.get("role_how") if launch is not None else None
    if taken in ("prefill", "decode") and how:
        # (the file name beside its sibling, a router's URL: the launch has that role and the pair rules ran on it;
        # "it was not paired" was false - start_prefill.sh / start_decode.sh, field test rw31/a item 1)
        return Gap(CR.UNRESOLVED_ROLE.code, tok,
                   f"the role of this launch ({flag} {name}) comes from a value pdlint cannot see: pdlint took its "
                   f"role, {taken}, from {how if how.startswith('the ') else 'the ' + how} and the pair rules read "
                   f"that role, but the checks of the role its own "
                   f"flags set did not run",
                   "give the role variable its values: name it with `role-var` in a template, set it per role in "
                   "`[tool.pdlint.roles.<role>.vars]`, or write the role literally")
    if _FIRST_ARG.match(tok.text):  # a script's first argument (the shell front-end keeps `$1` as written)
        return Gap(CR.UNRESOLVED_ROLE.code, tok,
                   f"the role of this launch ({flag} {name}) is the script's first argument, and neither does the "
                   f"script compare it with role names nor does a script or manifest in the repository call it "
                   f"with one: its role-specific checks did not run and it was not paired",
                   "check the argument in the script (`case \"$1\" in prefill|decode) ;; *) exit 1 ;; esac`), "
                   "then pdlint checks the script once per role; or call it with `prefill` / `decode` from a "
                   "script or manifest in the repository")
    return Gap(CR.UNRESOLVED_ROLE.code, tok,
               f"the role of this launch ({flag} {name}) comes from a value pdlint cannot see: its role-specific "
               f"checks did not run and it was not paired",
               "give the role variable its values: name it with `role-var` in a template, set it per role in "
               "`[tool.pdlint.roles.<role>.vars]`, or write the role literally")


def _generic_gaps(launch: Launch, info, role_flag: tuple, switch: Optional[Callable] = None) -> list:
    """``switch(option)``: does the engine's option take no value (vLLM's ``--trust-remote-code``,
    ``--no-enable-prefix-caching``)?  Then an opaque word after it (``$EXTRA_ARGS``, ``"$@"``) is a place
    for flags, not its value (ROCm/cvs vllm_serve_mi300x.sh)."""
    out = []
    values_of_flags = set()
    argv = list(launch.argv)
    for i, tok in enumerate(argv):
        # (`--port=8000` holds its value: the word after it is no value of it, rw25/a)
        if tok.text.startswith("-") and "=" not in tok.text and i + 1 < len(argv) and \
                not argv[i + 1].text.startswith("-") and not (switch is not None and switch(tok.text)):
            values_of_flags.add(i + 1)
    model = getattr(info, "model", None)
    for i, tok in enumerate(argv):
        if (_opaque(tok) or _opaque_name(tok)) and i not in values_of_flags and tok is not model and \
                not (i == 0 and launch.entrypoint.endswith((" serve", "trtllm-serve"))):  # `vllm serve MODEL`
            out.append(_opaque_gap(tok))
    if launch.role is None and role_flag:
        for i, tok in enumerate(argv):
            name = tok.text.split("=", 1)[0]
            if name in role_flag:
                val = tok if "=" in tok.text else (argv[i + 1] if i + 1 < len(argv) else None)
                if name == "--kv-transfer-config" and _literal_kv_role(info):
                    continue  # `"kv_role":"kv_both"` written: a variable elsewhere in the JSON hides no role
                if val is not None and val.opaque:
                    out.append(_role_gap(val, name, launch))
                    break
    return out


def _literal_kv_role(info) -> bool:
    """Is the vLLM ``kv_role`` of the launch's ``--kv-transfer-config`` written as a literal?"""
    kv = getattr(info, "kv", None)
    node = kv.get("kv_role") if kv is not None else None
    return node is not None and isinstance(node.value, str) and not node.tok.opaque


def _after(tokens: list, flag: str):
    for i, t in enumerate(tokens):
        if t.text == flag and i + 1 < len(tokens):
            return tokens[i + 1]
    return None

"""Shell command strings inside any YAML file: CI and workflow job specs.

GitHub Actions ``run:``, GitLab CI ``script:`` / ``before_script:`` lists,
sflow task ``script:`` lists, Argo ``script.source``, SkyPilot ``run:`` /
``setup:``, Buildkite steps' ``command:`` / ``commands:`` (a list of commands,
``$$`` the shell's ``$``), Slurm-ish ``command:`` strings, Truss ``start_command``, ... are
shell text that a runner hands to ``bash``.  This module finds them and
returns :class:`Script` values; the extractor parses each with the shell
front-end (:mod:`pdlint.formats.shell`), so every word keeps its YAML line and
column (block scalars ``|`` / ``>`` included: the scalar's value is a slice of
the document).

* **Where**: the value of a shell key (``run``, ``script``, ``before_script``,
  ``after_script``, ``setup``, ``source``, ``command``, ``commands``, ``cmd``,
  ``entrypoint``, ``exec`` and keys ending in ``_command`` / ``_cmd`` /
  ``_script``): a string is one script; a list of strings under a script key
  is one script of those lines (GitLab, sflow: the items run in one shell);
  a list of strings under ``command`` / ``cmd`` / ``entrypoint`` / ``args``
  is an exec-form argv.  A string kept under a key that names a script file
  (``prefill.sh: |`` in a ConfigMap's ``data``, which a container mounts and
  runs) or that starts with a shell ``#!`` line is a script too, the key
  naming its role.  A multi-line value of a harness's key (``server_cmd``,
  ``*_command``) whose later lines start with flags is one command line (the
  harness splits it; vllm-ascend's tests use ``shlex.split``), not a script
  of one command per line.  Kubernetes-style containers are left to
  :mod:`pdlint.formats.kube`.  Only values holding a launcher are read.
* **Environment**: ``env`` / ``envs`` / ``variables`` / ``environment``
  mappings (or ``[{name, value}]`` lists) of the enclosing mappings, inner
  over outer, become the script's environment (GitHub ``env``, GitLab and
  sflow ``variables``, SkyPilot ``envs``); values the runner computes are
  opaque.
* **Runner expressions** are substituted as text before the shell parses
  the script, as the runner does: ``${{ env.X }}`` / ``${{ matrix.x }}``
  (a job once per combination of its matrix: :func:`matrix_combinations`) / ``${{ inputs.x }}`` (default) for
  GitHub, ``${{
  variables.X }}`` for sflow, ``{{inputs.parameters.x}}`` /
  ``{{workflow.parameters.x}}`` for Argo.  An expression with no known value
  becomes an opaque word.
* **Role**: the enclosing job / task / step names (``prefill_server``, a step
  ``name: Start decode server``), innermost first.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from pdlint import lazyre
from pdlint.formats import crd
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass, field
from pdlint.text import NOT_EXPANDED, NOT_EXPANDED_BUDGET, Piece, TStr

SCRIPT_KEYS = {"run", "script", "before_script", "after_script", "setup", "source", "commands", "pre_script",
               "post_script"}
COMMAND_KEYS = {"command", "cmd", "entrypoint", "exec", "args"}
ENV_KEYS = ("variables", "env", "envs", "environment", "extraEnvVars")
_SUFFIX = lazyre.compile(r"(?:_command|_cmd|_script|Command|Cmd|Script)$")
_LAUNCHER = lazyre.compile(r"sglang\.launch_server|sglang\s+serve|dynamo\.(?:sglang|vllm|trtllm|frontend)|vllm\s+serve"
                       r"|vllm\.entrypoints\.(?:openai\.api_server|cli\.main\s+serve)|trtllm-serve"
                       r"|sglang_router\.launch_|sglang-router|vllm-router|vllm_router\.launch_router"
                       r"|disaggregation\.(?:mini_lb|launch_lb)|sgl_pdlb\.launch_lb|\b(?:smg|amg|sglang_router)\s+(?:launch|server)\b")
#: a key whose value some harness runs as a command line (``server_cmd``, ``launch_command``): no runner pdlint
#: knows, which may split it itself rather than hand it to a shell
_HARNESS_KEY = lazyre.compile(r"(?:_cmd|_command|Cmd|Command)$")
#: a line after the first that starts with a flag (the command goes on)
_FLAG_LINE = lazyre.compile(r"\n[ \t]*--?[A-Za-z]")
#: a line ending with a `\` continuation: written for a shell, which it goes to
_CONTINUED = lazyre.compile(r"\\[ \t]*\n")


def _one_line(t: TStr) -> TStr:
    """``t`` with its line breaks read as blanks (a command line split on whitespace), each where its break is."""
    from pdlint.formats.shell.words import computed
    parts, at, s = [], 0, t.text
    i = s.find("\n")
    while i >= 0:
        parts += [t[at:i], computed(" ", t[i:i + 1])]
        at = i + 1
        i = s.find("\n", at)
    parts.append(t[at:])
    return TStr.join(parts)


#: a key naming a shell script file (a ConfigMap's ``data``), a value that starts as one
_SCRIPT_FILE = lazyre.compile(r"\.(?:sh|bash)$")
_SHEBANG = lazyre.compile(r"#![^\n]*?\b(?:ba|da|k|z)?sh\b")
_GH_EXPR = lazyre.compile(r"\$\{\{(.*?)\}\}", re.S)
_ARGO_EXPR = lazyre.compile(r"(?<!\$)\{\{(.*?)\}\}", re.S)
#: Ansible's Jinja: an expression (group 1) or a statement (`{% if x %}`, group 1 None)
_ANSIBLE_EXPR = lazyre.compile(r"\{\{(.*?)\}\}|\{%.*?%\}", re.S)
_STATEMENT = lazyre.compile(r"\{%[-+]?\s*(\w*)")
_BLOCKS = {"if", "for", "macro", "call", "filter", "with", "block", "raw", "autoescape"}
#: the expressions of an Ansible task string pdlint evaluates: a quoted literal, a name with `default(...)`
_ANSIBLE_LITERAL = lazyre.compile(r"""\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*""")
_ANSIBLE_DEFAULT = lazyre.compile(r"""\s*([A-Za-z_][A-Za-z0-9_]*)\s*\|\s*(?:default|d)\s*\(\s*(?:'([^'\\]*)'|"([^"\\]*)"|"""
                              r"""(omit))\s*(?:,\s*(?:true|True|false|False)\s*)?\)\s*""")
_MAX_NODES = 50_000


@dataclass
class Script:
    text: Optional[TStr]  # shell script (None: ``words`` is an exec-form argv)
    words: list
    env: dict
    context: str
    role: Optional[str] = None
    role_tok: Optional[TStr] = None
    role_how: str = ""
    path: tuple = ()
    meta: dict = field(default_factory=dict)


def has_launcher(text: str) -> bool:
    return _LAUNCHER.search(text) is not None


#: runners whose script keys are read when they hold an engine flag, not only a launcher: the shell front-end then
#: tells a flag a check passes to `grep` (a rendered-manifest assertion) from a launch it cannot follow, as it does
#: in a `.sh` file
WORKFLOWS = ("github", "gitlab", "argo", "skypilot", "sflow", "buildkite")
_FLAG_NEEDLES = ("--disaggregation-", "--kv-transfer-config", "--kv_transfer_config", "--is-prefill-worker",
                 "--is-decode-worker", "--disagg-config", "--pd-disaggregation")


def may_hold_script_text(text: str) -> bool:
    """Could a YAML text hold a script :func:`scripts` reads (a launcher, or an engine flag a workflow's)?"""
    return has_launcher(text) or any(x in text for x in _FLAG_NEEDLES)


def _script_text(text: str, dia: str) -> bool:
    """Is a script key's value read as a script?  When it holds a launcher; in a workflow also an engine flag."""
    return has_launcher(text) or (dia in WORKFLOWS and any(x in text for x in _FLAG_NEEDLES))


# every match of _LAUNCHER holds one of these (none holds a blank: joining items with " " makes none)
_NEEDLES = ("sglang", "vllm", "dynamo.", "trtllm-serve", "disaggregation.", "smg", "amg")


def may_hold_scripts(docs: list, skip: set) -> bool:
    """Could :func:`scripts` find anything?  False when no scalar outside the ``skip`` nodes holds
    a launcher's name in its value (the walk emits only values holding a launcher, and never enters
    those nodes).  Documents with anchors are always walked (an alias reaches into any node)."""
    stack = []
    for d in docs:
        if d.anchors:
            return True
        if d.root is not None:
            stack.append(d.root)
    YScalar, YMap, YSeq = yt.YScalar, yt.YMap, yt.YSeq
    values = []  # searched at once: one needle search per text, not per scalar
    while stack:
        n = stack.pop()
        if id(n) in skip:
            continue
        kind = type(n)
        if kind is YScalar:
            values.append(n.value)
        elif kind is YMap:
            for k, v in n.pairs:
                stack.append(k)
                stack.append(v)
        elif kind is YSeq:
            stack.extend(n.items)
        else:  # an alias (documents without anchors have none) or a node kind added later: walk
            return True
    joined = " ".join(values)  # no needle holds the blank: it is in the join when in a value
    if any(x in joined for x in _NEEDLES):
        return True
    return any(x in joined for x in _FLAG_NEEDLES) and any(
        d.root is not None and dialect(yt.Ref(d.root)) in WORKFLOWS for d in docs)


#: Ansible task keywords (a task list that holds them beside a `command:` is Ansible's)
_ANSIBLE_TASK_KEYS = {"become", "register", "when", "notify", "args", "changed_when", "failed_when", "ignore_errors",
                      "delegate_to", "async", "poll", "loop", "with_items", "tags", "environment", "become_user"}
_ANSIBLE_PLAY_KEYS = {"tasks", "roles", "pre_tasks", "post_tasks", "handlers"}
_ANSIBLE_IMPORTS = {"import_playbook", "import_tasks", "include_tasks", "import_role", "include_role"}


def ansible_module(key: str) -> str:
    """A task's module key without its collection (``ansible.builtin.shell`` -> ``shell``)."""
    for prefix in ("ansible.builtin.", "ansible.legacy."):
        if key.startswith(prefix):
            return key[len(prefix):]
    return key


def _ansible(root: yt.Ref) -> bool:
    """A playbook (plays with ``hosts`` and tasks or roles, ``import_playbook`` entries) or a task list (a
    role's ``tasks/main.yml``).  Every item is looked at (their keys only; bounded by :data:`_MAX_NODES`): a play
    after 50 ``import_playbook`` lines made the file generic YAML, its launch PD020 (field test rw21/h)."""
    for item in yt.seq_items(root)[:_MAX_NODES]:
        if not isinstance(yt.deref(item).node, yt.YMap):
            continue
        keys = {k for k, _ in yt.map_items(item) if isinstance(k, str)}
        if ("hosts" in keys and keys & _ANSIBLE_PLAY_KEYS) or keys & _ANSIBLE_IMPORTS:
            return True
        if any(k.startswith(("ansible.builtin.", "ansible.legacy.")) for k in keys):
            return True
        # a task: `shell:` / `raw:` beside its `name:` or a task keyword; `command:` only beside a task keyword
        # (`- {name: x, command: ...}` is also how harnesses list their commands)
        if ({"shell", "raw"} & keys and keys & (_ANSIBLE_TASK_KEYS | {"name"})) or \
                ("command" in keys and keys & _ANSIBLE_TASK_KEYS):
            return True
    return False


def dialect(root: yt.Ref) -> str:
    node = yt.deref(root).node
    if isinstance(node, yt.YSeq):
        return "ansible" if _ansible(root) else "generic"
    if not isinstance(node, yt.YMap):
        return "generic"
    keys = {k for k, _ in yt.map_items(root)}
    if "jobs" in keys and ("on" in keys or "name" in keys):
        return "github"
    if yt.get(yt.get(root, "workflow"), "tasks") is not None:
        return "sflow"
    kind = yt.scalar_text(yt.get(root, "kind")) or ""
    if kind in ("Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"):
        return "argo"
    if "stages" in keys or any(isinstance(yt.deref(v).node, yt.YMap) and yt.get(v, "script") is not None
                               for _, v in yt.map_items(root)):
        return "gitlab"
    if "run" in keys and ({"resources", "setup", "envs", "num_nodes"} & keys):
        return "skypilot"
    if "steps" in keys and keys <= _BUILDKITE_TOP and any(
            isinstance(yt.deref(s).node, yt.YMap) and {k for k, _ in yt.map_items(s)} & _BUILDKITE_STEP
            for s in yt.seq_items(yt.get(root, "steps"))):
        return "buildkite"
    return "generic"


#: a Buildkite pipeline's top-level keys, and keys only its steps have
_BUILDKITE_TOP = {"steps", "env", "agents", "notify", "priority", "secrets", "image"}
_BUILDKITE_STEP = {"label", "group", "wait", "block", "trigger", "plugins", "agents", "depends_on", "key",
                   "soft_fail", "artifact_paths"}


def scripts(doc: TStr, docs: list, skip: set, ansible=None, cut: Optional[list] = None) -> list:
    """Every shell script / exec argv holding a launcher in ``docs``; ``skip``:
    ids of nodes (containers) another adapter reads; ``ansible``: the variables Ansible gives the file's
    tasks from other files (``ansible.role()``: a role's defaults, the plays that apply it and its vars,
    lowest first; ``ansible.play(ref)``: (the inventory's, the ``vars_files:``) variables of a play in
    the file), each a dict name -> TStr.  ``cut`` gets ``(where, started, run, "matrix", job)`` of each job matrix
    whose combinations were not all run (:data:`MAX_MATRIX`), ``(where, started, run, "argo", "")`` of each Argo
    template whose runs were not all walked (:data:`pdlint.formats.argo.MAX_RUNS`)."""
    out: list = []
    stream = None
    for di, d in enumerate(docs):
        if d.root is None:
            continue
        root = yt.Ref(d.root)
        dia = dialect(root)
        exprs = _expressions(doc, root, dia)
        artifacts = sflow_artifacts(doc, root, exprs) if dia == "sflow" else {}
        for name, (uri, path, _) in artifacts.items():
            exprs[f"artifacts.{name}.uri"] = uri
            if path is not None:
                exprs[f"artifacts.{name}.path"] = path
        if dia == "argo":
            from pdlint.formats import argo
            stream = stream or argo.Stream(doc, docs)
        if dia == "ansible" and ansible is not None:
            exprs = {**ansible.role(), **exprs}
        walker = _Walker(doc, dia, exprs, skip, out)
        walker.artifacts = artifacts
        walker.ansible = ansible
        walker.operators = {yt.scalar_text(yt.get(o, "name")): o for o in yt.seq_items(yt.get(root, "operators"))}
        setup = yt.get(root, "setup") if dia == "skypilot" else None
        if setup is not None and isinstance(yt.deref(setup).node, yt.YScalar):
            walker.setup_pins = _install_pins(yt.scalar_tstr(doc, setup))
        if dia == "argo":
            walker.argo = (stream, di)
        walker.walk(root, (), {}, [], None)
        if cut is not None:
            cut += walker.matrix_cut
    if stream is not None and cut is not None:
        cut += [(c.where, c.started, c.ran, "argo", "") for c in stream.cuts]
    return out


def _install_pins(text: TStr) -> dict:
    """``{engine: (version, its word)}`` of the engine pins a SkyPilot ``setup:`` installs (``pip install
    "sglang[all]==0.5.9"``): the release its ``run:`` starts (:func:`pdlint.formats.pins.text_install_pins`)."""
    from pdlint.formats.pins import text_install_pins
    return {e: (v, text[a:b]) for e, (v, a, b) in text_install_pins(text.text).items()}


#: well-known GitHub Actions whose ``with:`` inputs named here are code the action runs in no shell (each with its
#: language); the other actions' script keys (``appleboy/ssh-action``'s ``script``, ``nick-fields/retry``'s
#: ``command``) are shell, and read as such
NON_SHELL_ACTION_INPUTS = {
    "actions/github-script": {"script": "JavaScript"},  # run by the action in Node (its action.yml: `using: node`)
    "jannekem/run-python-script-action": {"script": "Python"},
}


def _action_code_inputs(step: yt.Ref) -> frozenset:
    """The ``with:`` keys of a GitHub Actions step whose ``uses:`` action runs them as non-shell code."""
    uses = yt.get(step, "uses")
    if uses is None or not isinstance(yt.deref(uses).node, yt.YScalar):
        return frozenset()
    action = yt.scalar_text(uses).strip().partition("@")[0].rstrip("/").lower()
    return frozenset(NON_SHELL_ACTION_INPUTS.get(action, ()))


class _Walker:
    def __init__(self, doc: TStr, dia: str, exprs: dict, skip: set, out: list):
        self.doc, self.dia, self.exprs, self.skip, self.out = doc, dia, exprs, skip, out
        self.budget = _MAX_NODES
        self.active: set = set()
        self.operators: dict = {}
        self.setup_pins: dict = {}  # a SkyPilot task's setup installs these releases for its run
        self.ansible = None  # (see scripts())
        # (where, combinations started, combinations run, "matrix", job) of matrices cut short
        self.matrix_cut: list = []
        self.matrix_run: Optional[tuple] = None  # (job, values of its non-role matrix keys) of the run walked
        self.matrix_run_cut = False  # the run walked is sampled in part: its other jobs were not run
        self.argo = None  # (argo.Stream, document index) of an Argo object: its templates' runs
        self.call = ""  # the Argo step / task whose run of the template is walked
        self.expansions = Expansions()  # (GitLab's variables: each expansion made once, one budget per file)
        self.written: dict = {}  # sflow: the artifacts' files it writes from `content:` (extract._written_files)
        self.artifacts: dict = {}  # sflow: sflow_artifacts() of the document walked

    def walk(self, ref: yt.Ref, path: tuple, env: dict, names: list, image: Optional[TStr]) -> None:
        r = yt.deref(ref)
        node = r.node
        self.budget -= 1
        if self.budget < 0 or len(path) > 48 or id(node) in self.active or id(node) in self.skip:
            return
        self.active.add(id(node))
        outer = self.exprs
        try:
            if isinstance(node, yt.YMap):
                if self.dia == "ansible" and yt.get(r, "hosts") is not None:
                    # a play: Ansible renders its tasks' `{{ name }}` with the inventory's variables, the play's
                    # `vars:` over them and its `vars_files:` over those
                    below, above = self.ansible.play(r) if self.ansible is not None else ({}, {})
                    self.exprs = {**outer, **below, **named_values(self.doc, yt.get(r, "vars")), **above}
                elif self.dia == "ansible" and yt.get(r, "vars") is not None:
                    # a block's or a task's own `vars:` (over the play's)
                    self.exprs = {**outer, **named_values(self.doc, yt.get(r, "vars"))}
                elif self.dia == "github" and len(path) == 2 and path[0] == "jobs":
                    matrix = yt.get(yt.get(r, "strategy"), "matrix")
                    combos, total, runs = matrix_plan(self.doc, matrix)
                    if total > len(combos):  # said at the matrix: the other runs were not checked
                        at = yt.deref(matrix).node.start
                        self.matrix_cut.append((self.doc[at:at + 1], total, len(combos), "matrix", str(path[1])))
                    if combos:
                        # the job once per combination of its matrix, as the runner starts it (field test rw22/a:
                        # `role: [prefill, decode]` with `--disaggregation-mode ${{ matrix.role }}` was PD021),
                        # each run a runner of its own (pairing.matrix_apart)
                        try:
                            for combo, run in zip(combos, runs):
                                self.exprs = {**outer, **combo}
                                self.matrix_run = (str(path[1]), run)
                                self._map(r, path, env, names, image)
                        finally:
                            self.matrix_run = None
                        return
                elif self.dia == "gitlab" and len(path) == 1 and yt.get(yt.get(r, "parallel"), "matrix") is not None:
                    combos, total, runs, cut = gitlab_matrix_sample(self.doc,
                                                                    yt.get(yt.get(r, "parallel"), "matrix"))
                    if total > len(combos):  # said at the matrix: the other runs were not checked
                        at = yt.deref(yt.get(r, "parallel")).node.start
                        self.matrix_cut.append((self.doc[at:at + 1], total, len(combos), "gitlab-matrix",
                                                str(path[0])))
                    if combos:
                        # the job once per combination of its `parallel: matrix:`, each a runner of its own with the
                        # combination's values as variables (field round rw29/a P11: `ROLE: [prefill, decode]` with
                        # `--disaggregation-mode $ROLE` was PD021, the two roles never paired)
                        try:
                            for combo, run in zip(combos, runs):
                                self.matrix_run = (str(path[0]), run)
                                self.matrix_run_cut = run in cut
                                self._map(r, path, {**env, **combo}, names, image)
                        finally:
                            self.matrix_run, self.matrix_run_cut = None, False
                        self.active.discard(id(node))
                        self.exprs = outer
                        return
                elif self.argo is not None and len(path) >= 2 and path[-2] == "templates" and \
                        isinstance(path[-1], int) and path[:-2] in (("spec",), ("spec", "workflowSpec")) and \
                        yt.get(r, "script") is not None:  # (a container template's runs: crd.workloads)
                    # a template once per step / DAG task that runs it, with the arguments it passes (field test
                    # rw26/h item 13: a server template's input defaults were taken for every call)
                    stream, di = self.argo
                    tname = yt.scalar_text(yt.get(r, "name"))
                    for run in stream.runs(di, tname) if tname else ():
                        self.exprs, self.call = {**outer, **run.params}, run.call
                        try:
                            self._map(r, path, env, names, image)
                        finally:
                            self.call = ""
                    if tname:
                        return
                self._map(r, path, env, names, image)
            elif isinstance(node, yt.YSeq):
                for i, item in enumerate(yt.seq_items(r)):
                    self.walk(item, path + (i,), env, names, image)
        finally:
            self.exprs = outer
            self.active.discard(id(node))

    def _image(self, r: yt.Ref) -> Optional[TStr]:
        """The container image a job / task runs in (``image``, ``container_image``, ``container.image``,
        an sflow operator's ``container_image``, SkyPilot's ``resources.image_id: docker:...``)."""
        cands = [yt.get(r, "image"), yt.get(r, "container_image"), yt.get(r, "container")]
        op = yt.get(r, "operator")
        if op is not None:
            oname = yt.scalar_text(op) if isinstance(yt.deref(op).node, yt.YScalar) else yt.scalar_text(yt.get(op, "name"))
            if oname in self.operators:
                cands.append(yt.get(self.operators[oname], "container_image"))
        for c in cands:
            if c is None:
                continue
            if isinstance(yt.deref(c).node, yt.YMap):
                c = yt.get(c, "image") or yt.get(c, "name")
            if c is not None and isinstance(yt.deref(c).node, yt.YScalar) and yt.scalar_text(c):
                return self._subst(yt.scalar_tstr(self.doc, c))
        if op is not None and oname in self.operators:
            # an srun operator's `extra_args: [--container-image=IMAGE]` (pyxis; NVIDIA/nv-sflow's composed
            # recipes, field test rw6/f: 22 findings judged against the newest releases)
            extra = yt.get(self.operators[oname], "extra_args")
            items = [i for i in yt.seq_items(extra)] if extra is not None and \
                isinstance(yt.deref(extra).node, yt.YSeq) else []
            words = [yt.scalar_tstr(self.doc, i) for i in items if isinstance(yt.deref(i).node, yt.YScalar)]
            for k, w in enumerate(words):
                name, eq, _ = w.text.partition("=")
                if name == "--container-image":
                    value = w[len(name) + 1:] if eq else (words[k + 1] if k + 1 < len(words) else None)
                    if value is not None and value.text:
                        return self._subst(value)
        res = yt.get(r, "resources")  # SkyPilot: resources.image_id: docker:<image> (other ids are VM images)
        if res is not None and isinstance(yt.deref(res).node, yt.YMap):
            c = yt.get(res, "image_id")
            if c is not None and isinstance(yt.deref(c).node, yt.YScalar) and \
                    yt.scalar_text(c).startswith("docker:") and len(yt.scalar_text(c)) > len("docker:"):
                tok = yt.scalar_tstr(self.doc, c)
                return self._subst(tok[len("docker:"):])
        return None

    def _map(self, r: yt.Ref, path: tuple, env: dict, names: list, image: Optional[TStr]) -> None:
        items = yt.map_items(r)
        image = self._image(r) or image
        own = {}
        if self.dia == "sflow" and path == ():  # (sflow exports each artifact's path to every task as $NAME)
            for name, (_, p, content) in self.artifacts.items():
                if p is not None:
                    own[name] = p
                    if content is not None:  # (the file sflow writes from `content:`, read when a launch names it)
                        self.written[os.path.normpath(p.text)] = (
                            content, f"written by sflow from artifact {name}'s content at line {content.origin.line}")
        for key in ENV_KEYS:
            v = yt.get(r, key)
            if v is not None:
                own.update(env_of(self.doc, v, self.exprs, self.dia))
        if own:
            env = {**env, **own}
            if self.dia == "gitlab" and path == ():  # (the global variables: the environment the jobs' take their
                # signatures from, but for what they set - rw33/h P5)
                self.expansions.of(env)
        if self.dia == "gitlab" and image is not None and "$" in image.text:
            # GitLab expands `$NAME` / `${NAME}` in `image:` from the variables (field round rw29/a P11: `image:
            # $SGL_IMAGE` with `SGL_IMAGE: lmsysorg/sglang:v0.5.9-cu129` was "no release is pinned"), nested ones
            # too (rw30/h P8: `SGL_IMAGE: "lmsysorg/sglang:$SGL_TAG"` stopped at one level, judged as the newest)
            image = expand_variables(image, env, expansions=self.expansions)
        name_ref = yt.get(r, "name")
        if name_ref is not None and isinstance(yt.deref(name_ref).node, yt.YScalar):
            names = names + [(yt.scalar_text(name_ref), yt.scalar_tstr(self.doc, name_ref), True)]
        # a container-like mapping (`command: [...]` and `args: [...]`, no `image:` to make it a container: a values
        # file's role section, an anchor merged into containers): one command line, the args after the command, as a
        # container runs them (rw27/h P18: `command` alone was a launch missing its --model-path, a false SGL010)
        joined_args = None
        if self.dia not in ("ansible", "buildkite"):
            cmd_ref, args_ref = yt.get(r, "command"), yt.get(r, "args")
            if cmd_ref is not None and args_ref is not None and _scalar_list(cmd_ref) and _scalar_list(args_ref):
                joined_args = yt.seq_items(args_ref)
        # a GitHub Actions step's `uses:` action whose `with:` inputs hold code it runs in no shell
        # (`actions/github-script`'s `script:` is JavaScript run in Node): not read as shell scripts
        code_inputs = _action_code_inputs(r) if self.dia == "github" else frozenset()
        for key, v in items:
            if key in ENV_KEYS and path == () and self.dia in ("sflow",):
                continue
            if key == "with" and code_inputs:
                continue  # (the action's other inputs are settings: a token, a result encoding, retries)
            if joined_args is not None and key == "args":
                continue  # (read after `command`)
            vnode = yt.deref(v).node
            module = ansible_module(key) if self.dia == "ansible" and isinstance(key, str) else None
            # (a Buildkite step's `command:` list is commands run one after another, as `commands:`; an Ansible
            # task's `shell:` / `raw:` is a script, its `command:` a command line, `argv:` its words)
            is_script_key = key in SCRIPT_KEYS or bool(_SUFFIX.search(key)) or (self.dia == "buildkite"
                                                                                and key == "command") \
                or module in ("shell", "raw")
            ckey = "command" if module in ("command", "argv") else key  # (Ansible's `argv:` list: exec-form words)
            if isinstance(vnode, yt.YScalar) and not is_script_key and ckey not in COMMAND_KEYS and \
                    "```" in vnode.value \
                    and isinstance(yt.scalar_value(vnode), str) and has_launcher(vnode.value):
                # Markdown kept in a value (vllm-project/recipes' `guide: |`): each shell code block is a script
                # (field test rw13/f: 444 PD020 in one repository, a NIXL port overlap unseen)
                text = yt.scalar_tstr(self.doc, v)
                for body, heading, lead in fenced_shell(text):
                    if not may_hold_script_text(body.text):  # (a launcher, or an image's: an engine flag)
                        continue
                    extra = [(key, crd.key_tstr(self.doc, r, key), False)]
                    if lead is not None:  # (`**Prefill** (GPUs 0-3):` names a role; a heading, a topic, does not)
                        extra.append((_lead_word(lead.text), lead, False))
                    self._emit(body, None, env, names + extra, path + (key,), image,
                               unit="#" + (heading.text.lstrip("# ") if heading is not None else key))
                continue
            if isinstance(vnode, yt.YScalar) and not is_script_key and ckey not in COMMAND_KEYS and \
                    (_SCRIPT_FILE.search(key) or _SHEBANG.match(vnode.value)):
                # a script kept as a value (a ConfigMap's `prefill.sh: |` a container runs): named by its key
                if isinstance(yt.scalar_value(vnode), str) and has_launcher(vnode.value):
                    self._emit(yt.scalar_tstr(self.doc, v), None, env,
                               names + [(key, crd.key_tstr(self.doc, r, key), False)], path + (key,), image)
            elif isinstance(vnode, yt.YScalar) and (is_script_key or ckey in COMMAND_KEYS):
                if isinstance(yt.scalar_value(vnode), str) and (
                        _script_text(vnode.value, self.dia) if is_script_key else has_launcher(vnode.value)):
                    text = yt.scalar_tstr(self.doc, v)
                    if _HARNESS_KEY.search(key) and _FLAG_LINE.search(text.text) and not _CONTINUED.search(text.text):
                        # `server_cmd: >` whose flag lines are more indented (so YAML keeps their newlines): a
                        # harness's command line, which it splits itself (vllm-ascend's tests: shlex.split), not
                        # a script whose every line is a command
                        text = _one_line(text)
                    self._emit(text, None, env, names, path + (key,), image)
            elif isinstance(vnode, yt.YSeq) and (is_script_key or ckey in COMMAND_KEYS):
                lines = [it for it in yt.seq_items(v) if isinstance(yt.deref(it).node, yt.YScalar)]
                if not lines or len(lines) != len(yt.seq_items(v)):
                    self.walk(v, path + (key,), env, names + [(key, crd.key_tstr(self.doc, r, key), False)], image)
                    continue
                if joined_args is not None and key == "command":
                    lines = lines + list(joined_args)  # (all scalars: _scalar_list)
                texts = [yt.scalar_tstr(self.doc, it) for it in lines]
                joined_text = " ".join(t.text for t in texts)
                if not (_script_text(joined_text, self.dia) if is_script_key else has_launcher(joined_text)):
                    continue
                if ckey in COMMAND_KEYS and not is_script_key:
                    self._emit(None, [self._subst(t) for t in texts], env, names, path + (key,), image)
                else:
                    nl = TStr.synthetic("\n", "<lines>")
                    joined = []
                    for t in texts:
                        joined += [t, nl]
                    self._emit(TStr.join(joined), None, env, names, path + (key,), image)
            elif isinstance(vnode, (yt.YMap, yt.YSeq)):
                self.walk(v, path + (key,), env, names + [(key, crd.key_tstr(self.doc, r, key), False)], image)

    def _subst(self, t: TStr) -> TStr:
        return substitute(t, self.exprs, self.dia)

    def _emit(self, text: Optional[TStr], words: Optional[list], env: dict, names: list, path: tuple,
              image: Optional[TStr], unit: str = "") -> None:
        role, tok, how = None, None, ""
        for name, ntok, _ in reversed(names):
            r = crd.role_of_name(name if isinstance(name, str) else None)
            if r:
                role, tok, how = r, crd.narrow(ntok, r) if ntok is not None else None, _how(self.dia)
                break
        label = _context(self.dia, names, path)
        if self.call:
            label += f", run by {self.call}"
        meta = {"image": image.text} if image is not None and not image.opaque else {}
        if self.written:
            meta["written_files"] = self.written
        if self.setup_pins and path[:1] == ("run",):
            meta["installed_pins"] = self.setup_pins
        if self.matrix_run is not None:
            meta["matrix_run"] = self.matrix_run
            if self.matrix_run_cut:  # (unpaired here: its partner was not sampled - the summary says so)
                meta["matrix_run_cut"] = True
        if unit:
            meta["unit_suffix"] = unit  # (a Markdown section: its blocks are one deployment, other sections others)
            meta["markdown_block"] = True
        if env:  # `$(NAME)` of a variable the env list sets: Kubernetes expands it in a container's args before
            # the shell runs (llm-d-benchmark's customCommand with extraEnvVars, field test rw16/l)
            from pdlint.formats.kube import expand_refs
            text = expand_refs(text, env, known_only=True) if text is not None else None
            words = [expand_refs(w, env, known_only=True) for w in words or []]
        if self.dia == "gitlab" and env:
            # (GitLab hands the job its variables expanded, nested ones included; those its script reads first -
            # the others' expansions, and past MAX_JOB_VARIABLES the others themselves, only as far as they are
            # cheap: rw35/h P5)
            env = expanded_env(env, self.expansions, read_names(text, words, env, self.expansions))
        self.out.append(Script(self._subst(text) if text is not None else None, words or [], dict(env), label, role,
                               tok, how, path, meta))


#: a Markdown code block's opening fence (```bash, ```sh, ```shell, ```zsh, or no language: shell)
_OPEN = lazyre.compile(r"(?P<indent>[ \t]*)```[ \t]*(?P<lang>[A-Za-z]*)[^\n`]*$")
_HEADING = lazyre.compile(r"^[ \t]*#{1,6}[ \t]+\S[^\n]*$", re.M)
_SHELL_LANGS = {"", "bash", "sh", "shell", "zsh"}


def _scalar_list(ref: yt.Ref) -> bool:
    """Is the node a non-empty list of scalars?"""
    node = yt.deref(ref).node
    return isinstance(node, yt.YSeq) and bool(yt.seq_items(ref)) and \
        all(isinstance(yt.deref(it).node, yt.YScalar) for it in yt.seq_items(ref))


def fenced_shell(text: TStr) -> list:
    """``(body, heading, lead)`` of each shell code block of a Markdown text: its body, the last heading
    above it and the last non-blank line before it (``**Prefill** (GPUs 0-3):``), each a slice of ``text``
    (None when there is none).  One pass over the lines (an unclosed fence runs to the end, as in Markdown)."""
    out = []
    t = text.text
    heading = None
    pos, n = 0, len(t)
    prev = None  # (start, end) of the last non-blank line outside a block
    while pos < n:
        nl = t.find("\n", pos)
        end = n if nl < 0 else nl
        m = _OPEN.match(t, pos, end)
        if m is None:
            if t[pos:end].strip():
                if _HEADING.match(t, pos, end):
                    heading, prev = text[pos:end].strip(), None
                else:
                    prev = (pos, end)
            pos = end + 1
            continue
        close = re.compile(r"^" + re.escape(m.group("indent")) + r"```[ \t]*$", re.M).search(t, end + 1)
        if close is None:
            break
        if m.group("lang").lower() in _SHELL_LANGS:
            lead = text[prev[0]:prev[1]].strip() if prev is not None and \
                len(t[prev[0]:prev[1]].strip()) <= 120 else None
            body = text[end + 1:close.start()]
            out.append((_placeholders_opaque(_ellipses_opaque(body)), heading, lead))
        prev = None
        pos = close.end() + 1
    return out


#: a documentation placeholder (`export HF_TOKEN=<your HF token>`, `--model <model_path>`): not a redirection
_PLACEHOLDER = lazyre.compile(r"(?<![<\w$])<(?![<(&])[A-Za-z][^<>\n\"']{0,60}>(?![>&])")


def _placeholders_opaque(body: TStr) -> TStr:
    """A guide's ``<your HF token>`` stands for a value the reader writes: one word pdlint cannot see (bash would
    read ``<`` as a redirection: PD009 on every such block of vllm-project/recipes)."""
    if "<" not in body.text:
        return body
    from pdlint.formats.shell.words import computed
    parts, last = [], 0
    for m in _PLACEHOLDER.finditer(body.text):
        parts += [body[last:m.start()], computed("_" * (m.end() - m.start()), body[m.start():m.end()]).as_opaque()]
        last = m.end()
    return TStr.join(parts + [body[last:]]) if parts else body


_ELLIPSIS = lazyre.compile(r"(?<!\S)(?:\.\.\.|\u2026)(?!\S)")


def _ellipses_opaque(body: TStr) -> TStr:
    """A documentation block's ``...`` word (``vllm serve MODEL ...``: more options) stands for words the guide
    leaves out: a value pdlint cannot see, not an argument."""
    if "..." not in body.text and "\u2026" not in body.text:
        return body
    parts, last = [], 0
    for m in _ELLIPSIS.finditer(body.text):
        parts += [body[last:m.start()], body[m.start():m.end()].as_opaque()]
        last = m.end()
    return TStr.join(parts + [body[last:]]) if parts else body


def _lead_word(line: str) -> str:
    """The first word of a line before a code block (``**Prefill** (GPUs 0-3, port 8000):`` -> ``Prefill``)."""
    words = re.findall(r"[A-Za-z][\w-]*", line)
    return words[0] if words else ""


def _how(dia: str) -> str:
    return {"github": "GitHub Actions job/step name", "gitlab": "GitLab CI job name", "sflow": "sflow task name",
            "argo": "Argo template name", "skypilot": "SkyPilot task name",
            "buildkite": "Buildkite step label", "ansible": "Ansible task name"}.get(dia, "YAML job/task name")


def _context(dia: str, names: list, path: tuple) -> str:
    where = ""
    for p in path:
        where += f"[{p}]" if isinstance(p, int) else (("." if where else "") + str(p))
    label = {"github": "GitHub Actions workflow", "gitlab": "GitLab CI", "sflow": "sflow workflow",
             "argo": "Argo workflow", "skypilot": "SkyPilot task", "buildkite": "Buildkite pipeline",
             "ansible": "Ansible play"}.get(dia, "YAML")
    named = [n for n, _, field in names if field and isinstance(n, str)]
    if dia == "sflow" and named:
        return f"{label} task {named[-1]!r} ({where})"
    if dia == "github" and len(path) >= 2 and path[0] == "jobs":
        step = f" step {named[-1]!r}" if named and "steps" in path else ""
        return f"{label} job {path[1]!r}{step} ({where})"
    if dia == "argo" and named:
        return f"{label} template {named[-1]!r} ({where})"
    if dia == "gitlab" and path:
        return f"{label} job {path[0]!r} ({where})"
    return f"{label} {where}"


# ---------------------------------------------------------------------------
# Environment and runner expressions
# ---------------------------------------------------------------------------

def env_of(doc: TStr, ref: yt.Ref, exprs: dict, dia: str) -> dict:
    """``NAME: value`` / ``NAME: {value: v}`` mappings and ``[{name, value}]`` lists."""
    out: dict = {}
    node = yt.deref(ref).node
    pairs = []
    if isinstance(node, yt.YMap):
        pairs = list(yt.map_items(ref))
    elif isinstance(node, yt.YSeq):
        for item in yt.seq_items(ref):
            if isinstance(yt.deref(item).node, yt.YScalar):
                # `- NAME=value` (dstack's `env:`, exported to every replica group's `commands:`, as Compose's
                # `environment:` list: rw34/a P10); `- NAME` alone passes the value the deployer's environment has
                # (the one `--var` gives, as for a name the file does not set)
                n, eq, _ = (yt.scalar_text(item) or "").partition("=")
                if eq and isinstance(yt.scalar_value(yt.deref(item).node), str) and \
                        re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n):
                    out[n] = substitute(yt.scalar_tstr(doc, item)[len(n) + 1:], exprs, dia)
                continue
            n = yt.scalar_text(yt.get(item, "name"))
            if n:
                pairs.append((n, item))
    for name, v in pairs:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(name)):
            continue
        vnode = yt.deref(v).node
        target = v
        if isinstance(vnode, yt.YMap):
            target = yt.get(v, "value")
            if target is None:
                target = yt.get(v, "default")
        if target is not None and isinstance(yt.deref(target).node, yt.YScalar) \
                and yt.scalar_value(yt.deref(target).node) is not None:
            out[name] = substitute(yt.scalar_tstr(doc, target), exprs, dia)
            flag = yt.deref(yt.get(v, "expand")).node if dia == "gitlab" and isinstance(vnode, yt.YMap) and \
                yt.get(v, "expand") is not None else None
            if isinstance(flag, yt.YScalar) and yt.scalar_value(flag) is False:
                out[name] = RawTStr(out[name].text, out[name].pieces)  # `expand: false`: passed as written
        else:
            out[name] = crd.at_node(doc, v, f"${{{name}}}").as_opaque()
    return out


def _expressions(doc: TStr, root: yt.Ref, dia: str) -> dict:
    """Known values of the runner's expressions: normalised expression -> TStr (unsubstituted)."""
    ex: dict = {}
    if dia == "sflow":
        for scope in (yt.get(root, "variables"), yt.get(yt.get(root, "workflow"), "variables")):
            for name, v in named_values(doc, scope).items():
                ex[f"variables.{name}"] = v
    elif dia == "github":
        for name, v in named_values(doc, yt.get(root, "env")).items():
            ex[f"env.{name}"] = v
        inputs = yt.get(yt.get(yt.get(root, "on"), "workflow_dispatch"), "inputs")
        for name, v in yt.map_items(inputs) if inputs is not None else ():
            d = yt.get(v, "default")
            if d is not None and isinstance(yt.deref(d).node, yt.YScalar):
                for pre in ("inputs.", "github.event.inputs."):
                    ex[pre + name] = yt.scalar_tstr(doc, d)
        for _, job in yt.map_items(yt.get(root, "jobs")) if yt.get(root, "jobs") is not None else ():
            matrix = yt.get(yt.get(job, "strategy"), "matrix")
            for name, v in yt.map_items(matrix) if matrix is not None else ():
                items = yt.seq_items(v)
                if len(items) == 1 and isinstance(yt.deref(items[0]).node, yt.YScalar):
                    ex.setdefault(f"matrix.{name}", yt.scalar_tstr(doc, items[0]))
    elif dia == "argo":
        spec = yt.get(root, "spec")
        for p in yt.seq_items(yt.get(yt.get(spec, "arguments"), "parameters")):
            n, v = yt.scalar_text(yt.get(p, "name")), yt.get(p, "value")
            if n and v is not None and isinstance(yt.deref(v).node, yt.YScalar):
                ex[f"workflow.parameters.{n}"] = yt.scalar_tstr(doc, v)
        # (a template's `{{inputs.parameters.X}}`: per run of the template, _Walker.walk)
    return ex


#: the URI schemes whose artifact sflow makes a local path (nv-sflow docs, "Artifacts": `fs://` and `file://`
#: become a local filesystem path, relative ones resolved against `--workspace-dir`; `http(s)://` are downloaded
#: to a cached copy pdlint cannot name)
_SFLOW_LOCAL = ("fs://", "file://")


def sflow_artifacts(doc: TStr, root: yt.Ref, exprs: dict) -> dict:
    """``NAME -> (uri, path, content)`` of an sflow workflow's ``artifacts:`` (a list of ``{name, uri}`` or a
    mapping ``NAME: {uri}``), each traced to its ``uri:``, its ``${{ variables.X }}`` substituted.  ``path`` is
    what ``${{ artifacts.NAME.path }}`` and the ``$NAME`` sflow exports to every task hold: the absolute path of
    an ``fs://`` / ``file://`` URI; None when pdlint cannot know it (a relative path, resolved against the
    workspace sflow is run in; a download; a value it cannot see).  Field round rw32/a item 3: the model path of
    every sflow sample was left undecided, though its URI was written in the file.  ``content``: the text sflow
    writes to a ``file://`` artifact's path (``content: |``, a TensorRT-LLM ``--extra_llm_api_options`` file in
    NVIDIA's recipes), its expressions substituted; such a path may be relative: a launch that names it reads
    that text, never a file of the repository."""
    out: dict = {}
    ref = yt.get(root, "artifacts")
    if ref is None:
        return out
    node = yt.deref(ref).node
    pairs = list(yt.map_items(ref)) if isinstance(node, yt.YMap) else \
        [(yt.scalar_text(yt.get(i, "name")), i) for i in yt.seq_items(ref)] if isinstance(node, yt.YSeq) else []
    for name, v in pairs:
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            continue
        u = yt.get(v, "uri") if isinstance(yt.deref(v).node, yt.YMap) else None
        if u is None or not isinstance(yt.deref(u).node, yt.YScalar) or yt.scalar_value(yt.deref(u).node) is None:
            continue
        uri = substitute(yt.scalar_tstr(doc, u), exprs, "sflow")
        path = None
        scheme = next((s for s in _SFLOW_LOCAL if uri.text.startswith(s)), None)
        c = yt.get(v, "content")
        content = substitute(yt.scalar_tstr(doc, c), exprs, "sflow") if scheme == "file://" and c is not None \
            and isinstance(yt.deref(c).node, yt.YScalar) and isinstance(yt.scalar_value(yt.deref(c).node), str) \
            else None
        if scheme is not None and not any(p.opaque for p in uri.pieces):
            rest = uri[len(scheme):]
            if rest.text.strip() and "\n" not in rest.text and (rest.text.startswith("/") or content is not None):
                path = rest
        out[name] = (uri, path, content if path is not None else None)
    return out


#: combinations of one job's matrix expanded at most (each a run of its steps)
MAX_MATRIX = 16
#: combinations of a matrix's lists, and include entries, computed at most (GitHub starts at most 256 jobs of
#: one matrix)
MAX_MATRIX_PRODUCT = 1024


def matrix_combinations(doc: TStr, matrix) -> list:
    """The ``{"matrix.KEY": value}`` of the combinations of a job's matrix pdlint runs its steps for (at most
    :data:`MAX_MATRIX`: :func:`matrix_runs`)."""
    return matrix_runs(doc, matrix)[0]


def matrix_runs(doc: TStr, matrix) -> tuple:
    """``(combinations, how many the runner starts)`` of a GitHub Actions ``strategy.matrix``
    (:func:`matrix_plan`)."""
    combos, total, _ = matrix_plan(doc, matrix)
    return combos, total


_GITLAB_VAR = lazyre.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


class RawTStr(TStr):
    """The value of a GitLab variable written ``{value: ..., expand: false}``: GitLab passes it as written, its
    ``$NAME`` unexpanded."""
    __slots__ = ()


#: bounds of GitLab's nested expansion here (untrusted input: `A: $B$B$B$B`, `B: $C$C$C$C`, ... doubles per level):
#: a value's expansion may take :data:`MAX_EXPAND_STEPS` substitutions and :data:`MAX_EXPAND_CHARS` characters, a
#: reference in a cycle nests at most :data:`MAX_EXPAND_DEPTH` deep, and a whole file's expansions together take
#: :data:`MAX_FILE_EXPAND_STEPS` (rw31/h P2: the bounds were per value and per job - 300 doubling variables and 50
#: jobs were 15 million substitutions, the file unchecked) and :data:`MAX_FILE_EXPAND_SIZE` (rw32/h P2: the
#: expansions a file's jobs keep - 1,200 jobs each naming a value of thousands of traced pieces were 512 MB, the
#: file unchecked), a traced piece counting as :data:`EXPAND_PIECE_SIZE` characters.  Past the file's budget each
#: job environment still gets :data:`JOB_EXPAND_STEPS` steps and :data:`JOB_EXPAND_SIZE` characters of its own
#: (rw33/h P5: 1,100 jobs spent the file's budget and a later job's two-step `$TP` -> `$TPV` was not expanded, a
#: clean pass), all jobs' allowances together at most :data:`MAX_FILE_JOB_STEPS` and :data:`MAX_FILE_JOB_SIZE`
MAX_EXPAND_DEPTH = 16
MAX_EXPAND_CHARS = 8192
MAX_EXPAND_STEPS = 1000
MAX_FILE_EXPAND_STEPS = 200_000
MAX_FILE_EXPAND_SIZE = 16_000_000
EXPAND_PIECE_SIZE = 64
JOB_EXPAND_STEPS = 100
JOB_EXPAND_SIZE = 16_384
MAX_FILE_JOB_STEPS = 100_000
MAX_FILE_JOB_SIZE = 4_000_000
#: the expansions of the variables a job's script does not read (:func:`read_names`) take at most this many steps of
#: the file's budget; past it such a variable whose expansion is not made already is handed on as a value pdlint did
#: not expand (NOT_EXPANDED_BUDGET), at no cost per job (rw35/h P5: 200 chained globals, each re-expanded for each
#: of 2,000 jobs that set the chain's end, took 26 s though the scripts read one of them)
MAX_FILE_UNREAD_STEPS = 20_000
#: a job environment of more variables hands its script only those it reads (:func:`read_names`): 3,200 globals
#: copied into each of 1,000 jobs, their launches and their checks took 512 MB (rw35/h P5)
MAX_JOB_VARIABLES = 256
#: the job environments :class:`Expansions` keeps (their variables together), so that 1,000 jobs of 3,200
#: variables do not each keep a copy (rw35/h P5)
MAX_KEPT_ENV_ENTRIES = 200_000


class _TooBig(Exception):
    """An expansion not made: ``inherent`` when no cut (a cycle, the depth) was met on the way - every value
    naming the variable is too big too; ``budget`` when the file's budget (and the job's allowance), not the
    value's own bounds, stopped it."""

    def __init__(self, inherent: bool = False, budget: bool = False):
        super().__init__()
        self.inherent = inherent
        self.budget = budget


_TOO_BIG = object()  # a memoised verdict: the variable's expansion is over the bounds
_WALKING = object()  # (a variable whose signature is being made: a reference to it is a cycle)
_UNKNOWN = object()  # (a signature not inherited)


class Expansions:
    """The memory of one file's GitLab variable expansions: each variable's expansion (or its too-big verdict)
    made once for the file, found by its *signature* - its value and, recursively, those of the variables it names
    (the part of a job's environment it reaches): the jobs that do not set what a global variable reaches share
    its expansion (rw32/h P2: it was made again, and kept, for each job environment), and its signature too (a job
    environment's signatures are those of an earlier environment but for the variables that reach one it sets:
    rw33/h P5, the walk of a 200-variable chain was made, and charged, again for each of 1,100 jobs) -, one step
    budget and one size budget (the characters and traced pieces of the expansions made) for the file, and past
    them a small allowance of each job environment's own (:data:`JOB_EXPAND_STEPS`, :data:`JOB_EXPAND_SIZE`)."""

    def __init__(self, steps: int = MAX_FILE_EXPAND_STEPS, size: int = MAX_FILE_EXPAND_SIZE,
                 job_steps: int = JOB_EXPAND_STEPS, job_size: int = JOB_EXPAND_SIZE):
        self.steps_left = steps
        self.size_left = size
        self.job = (job_steps, job_size)  # each environment's allowance past the file's budget
        self.jobs_left = [MAX_FILE_JOB_STEPS, MAX_FILE_JOB_SIZE]  # the allowances' total
        self.allowance: list = [0, 0]  # that of the environment whose expansions are made now
        self._envs: dict = {}  # env key -> (values kept alive, the env's _Memo, expanded env or None)
        self._base: Optional["_Memo"] = None  # the environment later ones take the signatures of
        self.made: dict = {}  # signature -> expansion or _TOO_BIG
        self.signatures: dict = {}  # (id(value), signatures of the names it reads) -> (signature, value kept alive)
        self.runtime: dict = {}  # name -> may an engine or a check read it unnamed (runtime_names)
        self._kept = 0  # the variables of the environments kept in _envs (MAX_KEPT_ENV_ENTRIES)
        self.unread_left = MAX_FILE_UNREAD_STEPS  # the steps the variables no script reads may still take
        self._cut: dict = {}  # id(value) -> (value, its NOT_EXPANDED_BUDGET stand-in), made once for the file

    def cut(self, v: TStr, env: dict) -> TStr:
        """``v`` (a variable's value) as a value pdlint did not expand for the file's budget (made once for the
        file, not per job: rw35/h P5)."""
        made = self._cut.get(id(v))
        if made is None:
            made = self._cut[id(v)] = (v, _refs_unexpanded(v, env, NOT_EXPANDED_BUDGET))
        return made[1]

    def _pay(self, i: int, n: int) -> bool:
        a, t = self.allowance, self.jobs_left
        if a[i] >= n and t[i] >= n:
            a[i] -= n
            t[i] -= n
            return True
        return False

    def spend(self, n: int = 1) -> bool:
        """Take ``n`` steps of the file's budget, else of the environment's allowance; False when neither has
        them (the file's budget is then below 0)."""
        if self.steps_left >= n:
            self.steps_left -= n
            return True
        if self._pay(0, n):
            return True
        self.steps_left = min(self.steps_left - n, -1)
        return False

    def spend_size(self, t: TStr) -> bool:
        n = len(t.text) + EXPAND_PIECE_SIZE * len(t.pieces)
        if self.size_left >= n:
            self.size_left -= n
            return True
        if self._pay(1, n):
            return True
        self.size_left = min(self.size_left - n, -1)
        return False

    def of(self, env: dict) -> list:
        """``[values, memo, expanded]`` of ``env`` (by the identity of its values); its expansions are made from
        now on (its allowance)."""
        key = (tuple(env), tuple(map(id, env.values())))
        entry = self._envs.get(key)
        if entry is None:
            self._kept += len(env)
            if len(self._envs) > 4096 or self._kept > MAX_KEPT_ENV_ENTRIES:
                self._envs.clear()
                self._kept = len(env)
            memo = _Memo(self, env, list(self.job))
            self.allowance = memo.allowance
            if not memo.inherit(self._base):  # (far from the base: a base for the environments after it)
                self._base = memo
            entry = self._envs[key] = [list(env.values()), memo, None]
        self.allowance = entry[1].allowance
        return entry


class _Memo:
    """One environment's view of its file's :class:`Expansions` (a mapping from a variable's name to its
    expansion made, or its too-big verdict): by the variable's signature in this environment; a variable that
    reaches a cycle has none (its expansion is never clean, only its verdict is kept, for this environment).  The
    signature of a variable that reaches none of the variables this environment sets otherwise than ``base`` does
    (``stale``) is ``base``'s, made once for both."""
    __slots__ = ("ex", "env", "sigs", "local", "allowance", "base", "stale", "_readers")

    def __init__(self, ex: Expansions, env: dict, allowance: list):
        self.ex, self.env, self.allowance = ex, env, allowance
        self.sigs: dict = {}  # name -> signature, None in (or reaching) a cycle
        self.local: dict = {}  # name (no signature) -> _TOO_BIG
        self.base: Optional["_Memo"] = None
        self.stale: set = set()
        self._readers = None  # (as a base) name -> the names whose value names it (False: not made)

    def readers(self) -> Optional[dict]:
        """name -> the variables whose value names it (made once, a step of the file's budget a reference);
        None when the budget did not take it (not tried again)."""
        if self._readers is None:
            out: dict = {}
            for k, v in self.env.items():
                names = _names(v)
                if names and not self.ex.spend(len(names)):
                    self._readers = False
                    return None
                for n in names:
                    out.setdefault(n, []).append(k)
            self._readers = out
        return None if self._readers is False else self._readers

    def inherit(self, base: Optional["_Memo"]) -> bool:
        """Take ``base``'s signatures for the variables that reach none this environment sets otherwise; False
        when it sets more than half of its variables otherwise (or the base's readers were not made): this
        environment is then a base of its own.  (Past the budget the variables that reach what it sets are not
        found: nothing is taken, each walk is made here.)"""
        if base is None:
            return False
        env, benv = self.env, base.env
        changed = [k for k, v in env.items() if benv.get(k, _UNKNOWN) is not v]
        changed += [k for k in benv if k not in env]
        if 2 * len(changed) > len(env):
            return False
        readers = base.readers()
        if readers is None:
            return False
        stale, todo = set(changed), list(changed)
        while todo:
            for r in readers.get(todo.pop(), ()):
                if r not in stale:
                    if not self.ex.spend():
                        return True
                    stale.add(r)
                    todo.append(r)
        self.base, self.stale = base, stale
        return True

    def _inherited(self, name: str):
        if self.base is None or name in self.stale:
            return _UNKNOWN
        return self.base.sig(name)

    def sig(self, root: str):
        """The signature of ``root`` in this environment (an iterative post-order walk of the names it reaches,
        each once per environment - and once for the environments that take it from their ``base`` -, a step of
        the file's budget a reference)."""
        sigs = self.sigs
        if root in sigs:
            s = sigs[root]
            return None if s is _WALKING else s
        s = self._inherited(root)
        if s is not _UNKNOWN:
            sigs[root] = s
            return s
        env, ex = self.env, self.ex
        sigs[root] = _WALKING
        todo = [(root, iter(_names(env.get(root))))]
        while todo:
            name, it = todo[-1]
            nxt = next(it, None)
            if nxt is not None:
                if not ex.spend():
                    for n, _ in todo:  # (not made: the walk is made again, and stopped again, if asked again)
                        del sigs[n]
                    raise _TooBig(budget=True)
                if nxt not in sigs:
                    try:
                        s = self._inherited(nxt)
                    except _TooBig:
                        for n, _ in todo:
                            del sigs[n]
                        raise
                    if s is not _UNKNOWN:
                        sigs[nxt] = s
                        continue
                    sigs[nxt] = _WALKING
                    todo.append((nxt, iter(_names(env.get(nxt)))))
                continue
            todo.pop()
            v = env.get(name)
            kids = tuple(sigs[n] for n in _names(v))
            if any(k is None or k is _WALKING for k in kids):
                sigs[name] = None
                continue
            key = (id(v), kids)
            made = ex.signatures.get(key)
            if made is None:
                made = ex.signatures[key] = (len(ex.signatures), v)
            sigs[name] = made[0]
        return sigs[root]

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def get(self, name: str):
        s = self.sig(name)
        return self.local.get(name) if s is None else self.ex.made.get(s)

    def __getitem__(self, name: str):
        v = self.get(name)
        if v is None:
            raise KeyError(name)
        return v

    def __setitem__(self, name: str, value) -> None:
        s = self.sig(name)
        if s is not None:
            self.ex.made[s] = value
        elif value is _TOO_BIG:
            self.local[name] = value


def _refs(v) -> list:
    """The names a variable's value expands (none for `expand: false`, an opaque value, a value without `$`)."""
    if not isinstance(v, TStr) or v.opaque or isinstance(v, RawTStr) or "$" not in v.text:
        return []
    return [m.group(1) or m.group(2) for m in _GITLAB_VAR.finditer(v.text)]


def _names(v) -> list:
    """:func:`_refs` without repeats, in order."""
    return list(dict.fromkeys(_refs(v)))


def _prepare(names, env: dict, memo: "_Memo", ex: "Expansions") -> None:
    """Expand the variables ``names`` reach, those they name first (an iterative post-order walk), so that each
    is made once and no expansion nests deeper than its cycles (a chain of 2,000 variables is 2,000 steps); a
    variable made already (for this file: :class:`Expansions`) is not walked."""
    done: set = set()
    for root in names:
        if root in done or root in memo:
            continue
        todo = [(root, iter(_refs(env.get(root))))]
        done.add(root)
        while todo:
            name, it = todo[-1]
            nxt = next(it, None)
            if nxt is not None:
                if not ex.spend():
                    raise _TooBig(budget=True)
                if nxt not in done and nxt in env and nxt not in memo:
                    done.add(nxt)
                    todo.append((nxt, iter(_refs(env[nxt]))))
                continue
            todo.pop()
            v = env.get(name)
            if name not in memo and _refs(v):
                try:
                    res, clean = _expand(v, env, (name,), [0], memo, ex)
                except _TooBig as e:
                    if e.inherent:
                        memo[name] = _TOO_BIG
                    if e.budget:
                        raise
                    continue
                if clean:
                    memo[name] = res


def expand_variables(t: TStr, env: dict, _stack: tuple = (), expansions: Optional[Expansions] = None) -> TStr:
    """``$NAME`` / ``${NAME}`` of ``t`` replaced by the values ``env`` knows (others kept as written), as GitLab
    expands its CI/CD variables: recursively - a variable whose value names another variable is expanded too
    (`SGL_IMAGE: "lmsysorg/sglang:$SGL_TAG"`) - except a variable written ``{value: ..., expand: false}``
    (:class:`RawTStr`).  A reference in a cycle (`A: $B`, `B: $A`) is kept as written; an expansion of more than
    :data:`MAX_EXPAND_STEPS` substitutions or :data:`MAX_EXPAND_CHARS` characters, or past the file's
    :data:`MAX_FILE_EXPAND_STEPS` (``expansions``) and the job's allowance, is not made: ``t`` as written, opaque
    (a value pdlint did not decide, said where a launch reads it: :data:`NOT_EXPANDED`, or
    :data:`NOT_EXPANDED_BUDGET` when the file's budget, not the value, stopped it)."""
    ex = expansions if expansions is not None else Expansions()
    return _expand_value(t, env, _stack, ex.of(env)[1], ex)


def _expand_value(t: TStr, env: dict, stack: tuple, memo: "_Memo", ex: "Expansions") -> TStr:
    own = len(stack) == 1 and env.get(stack[0]) is t  # (a variable's own value: made once for the file)
    try:
        if own:
            known = memo.get(stack[0])
            if known is not None:
                return _refs_unexpanded(t, env) if known is _TOO_BIG else known
        _prepare([n for n in _refs(t) if n not in stack], env, memo, ex)
        res, clean = _expand(t, env, stack, [0], memo, ex)
        if own and clean:
            memo[stack[0]] = res
        return res
    except _TooBig as e:
        if own and e.inherent:
            memo[stack[0]] = _TOO_BIG
        return _refs_unexpanded(t, env, NOT_EXPANDED_BUDGET if e.budget else NOT_EXPANDED)


def _refs_unexpanded(t: TStr, env: dict, why: str = NOT_EXPANDED) -> TStr:
    """``t`` whose expansion went past the bounds: its own text kept, each reference to a variable it would have
    expanded a value pdlint did not expand (``NOT_EXPANDED``) - not the whole value (hostile-input round rw32/h
    P11: `ARGS: "--tp-sizee 2 --served-model-name $V0"` with `$V0` past the bounds hid the literal typo, exit 0);
    ``why``: the value's bounds (``NOT_EXPANDED``) or the file's budget (``NOT_EXPANDED_BUDGET``)."""
    parts, at = [], 0
    for m in _GITLAB_VAR.finditer(t.text):
        v = env.get(m.group(1) or m.group(2))
        if not isinstance(v, TStr) or v.opaque:
            continue
        parts += [t[at:m.start()], t[m.start():m.end()].as_opaque(why)]
        at = m.end()
    return TStr.join(parts + [t[at:]]) if parts else t.as_opaque(why)


def _expand(t: TStr, env: dict, stack: tuple, steps: list, memo: "_Memo", ex: "Expansions") -> tuple:
    """``(t expanded, clean)``: clean when no reference was cut (a cycle, the depth), so that the expansion is the
    same wherever it is made (memoised)."""
    parts, at, size, clean = [], 0, 0, True
    for m in _GITLAB_VAR.finditer(t.text):
        name = m.group(1) or m.group(2)
        v = env.get(name)
        if not isinstance(v, TStr) or v.opaque:
            continue
        if name in stack:
            clean = False
            continue
        steps[0] += 1
        if steps[0] > MAX_EXPAND_STEPS:
            raise _TooBig
        if not ex.spend():
            raise _TooBig(budget=True)
        if "$" in v.text and not isinstance(v, RawTStr):
            known = memo.get(name)
            if known is _TOO_BIG:
                raise _TooBig(True)  # (its expansion, too big wherever it is made, is part of this one)
            if known is not None:
                v = known
            elif len(stack) < MAX_EXPAND_DEPTH:
                try:
                    v, c = _expand(v, env, stack + (name,), steps, memo, ex)
                except _TooBig as e:
                    if e.inherent:
                        memo[name] = _TOO_BIG
                    raise _TooBig(e.inherent, e.budget)
                if c:
                    memo[name] = v
                clean = clean and c
            else:
                clean = False
        parts += [t[at:m.start()], v]
        size += m.start() - at + len(v.text)
        at = m.end()
        if size > MAX_EXPAND_CHARS:
            raise _TooBig(clean)
    if not parts:
        return t, clean
    res = TStr.join(parts + [t[at:]])
    if not ex.spend_size(res):  # (the file's expansions are kept: their size is bounded, rw32/h P2)
        raise _TooBig(budget=True)
    return res, clean


#: a script that may read variables it does not name: it sources or runs another file (a word with a `/`, a
#: script's suffix, `source` / `.`), or lists or evaluates its environment
_READS_ALL = lazyre.compile(r"(?:^|[\s;&|(`'\"])(?:source|\.|env|printenv|export|declare|typeset|set|eval|compgen)(?=$|[\s;&|)`'\"])"
                            r"|/|\.(?:sh|bash|zsh|py)\b|\$\{!", re.M)  # (`${!R}`: a name made at run time, rw35/i P6)
_NAME = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the prefixes of the variables an engine, a runtime or a check may read from a launch's environment without the
#: script naming them (with :func:`pdlint.extract.env_checked`)
_RUNTIME_VAR = lazyre.compile(r"(?:SGL|SGLANG|VLLM|NCCL|CUDA|HIP|ROCR|HABANA|ZE|ASCEND|HCCL|TPU|DYN|LMCACHE|NIXL|UCX|"
                              r"MC|MOONCAKE|TRTLLM|TLLM|HF|TORCH|PYTORCH|OMP|GLOO|NVSHMEM|DEEPEP|PYTHON)_|HF_")


def read_names(text: Optional[TStr], words: Optional[list], env: dict,
               ex: Optional["Expansions"] = None) -> Optional[frozenset]:
    """The variables of ``env`` a job's script (``text`` / exec-form ``words``) may read: those it names, and those
    an engine or a check may read from a launch's environment; None (all of them) when it may read others too
    (:data:`_READS_ALL`)."""
    parts = ([text.text] if text is not None else []) + [w.text for w in words or ()]
    if any(_READS_ALL.search(p) for p in parts):
        return None
    named = {m.group() for p in parts for m in _NAME.finditer(p)}
    return frozenset(k for k in env if k in named) | runtime_names(env, ex)


def runtime_names(env: dict, ex: Optional["Expansions"]) -> frozenset:
    """The variables of ``env`` an engine or a check may read unnamed (decided once per name for the file)."""
    from pdlint.extract import env_checked
    seen = ex.runtime if ex is not None else {}
    out = []
    for k in env:
        r = seen.get(k)
        if r is None:
            r = seen[k] = env_checked(k) or bool(_RUNTIME_VAR.match(k))
        if r:
            out.append(k)
    return frozenset(out)


def expanded_env(env: dict, expansions: Optional[Expansions] = None, read: Optional[frozenset] = None) -> dict:
    """GitLab's variables as a job gets them: each value expanded (:func:`expand_variables`) against all the
    variables of the job (job variables and global ones alike: a global `ARGS: "--tp-size $TP"` takes the job's
    `TP`); a value too big to expand is opaque.  Made once per environment (``expansions``: the jobs of a file that
    share their variables share it).  ``read`` (:func:`read_names`; None: all): the variables the job's script reads
    are expanded first; the others' expansions are made while :data:`MAX_FILE_UNREAD_STEPS` lasts, else taken when
    made already (for an earlier job), else they are values pdlint did not expand (NOT_EXPANDED_BUDGET); past
    :data:`MAX_JOB_VARIABLES` variables only those read are handed on (rw35/h P5)."""
    ex = expansions if expansions is not None else Expansions()
    entry = ex.of(env)
    if read is None and entry[2] is not None:
        return entry[2]
    memo = entry[1]
    if read is not None and len(env) > MAX_JOB_VARIABLES:
        out = {k: env[k] for k in env if k in read}
    else:
        out = dict(env)
    items = [(k, v) for k, v in out.items() if "$" in getattr(v, "text", "") and _refs(v)]
    if read is not None:  # (what the script reads first: the budget is for them)
        items.sort(key=lambda kv: kv[0] not in read)
    elif memo.base is not None:  # (what the job sets, and what reaches it, first: its allowance is for them)
        items.sort(key=lambda kv: kv[0] not in memo.stale)
    for k, v in items:
        if read is None or k in read:
            out[k] = _expand_value(v, env, (k,), memo, ex)
            continue
        if ex.unread_left > 0:
            before = ex.steps_left
            out[k] = _expand_value(v, env, (k,), memo, ex)
            ex.unread_left -= max(before - ex.steps_left, 1)
            continue
        if k in memo.sigs or memo.base is not None and k not in memo.stale:  # (made: here, or for the base)
            try:
                known = memo.get(k)
            except _TooBig:
                known = None
            if known is not None and known is not _TOO_BIG:
                out[k] = known
                continue
        out[k] = ex.cut(v, env)
    if read is None:
        entry[2] = out
    return out


def gitlab_matrix(doc: TStr, matrix) -> tuple:
    """``(combinations, how many jobs GitLab starts, the run of each)`` of a GitLab CI ``parallel: matrix:``: a
    list of mappings, each the product of its keys' values (a list, or one scalar), the jobs of all entries
    together; each combination ``{NAME: value}`` (the job's variables), at most :data:`MAX_MATRIX`: all of them
    when there are no more, else whole runs - a run is a combination of the keys that do not name the roles, taken
    with every role combination of it (rw31/h P8: a sample of prefill-only jobs said "no server of the other
    role") -, entry by entry the runs that take each value of each key at least once (the i-th takes the i-th
    value of every key, cycling), then the other runs in order, while whole runs fit.  The sample is made without
    the whole product (rw30/h P15: 64 entries of ten two-valued keys took 4.9 s).  The run of a combination: its
    values of the keys that do not name the roles (:func:`matrix_plan`'s runs)."""
    return gitlab_matrix_sample(doc, matrix)[:3]


def gitlab_matrix_sample(doc: TStr, matrix) -> tuple:
    """:func:`gitlab_matrix`'s ``(combinations, total, runs)`` and the runs the sample holds only part of (a run
    of more jobs than :data:`MAX_MATRIX`): their launches' partners were not sampled."""
    import itertools
    total = 0
    items = yt.seq_items(matrix) if isinstance(yt.deref(matrix).node, yt.YSeq) else []
    entries: list = []
    values_of: dict = {}  # key -> its values in every entry (what _role_keys reads)
    for entry in items[:MAX_MATRIX_PRODUCT]:
        if not isinstance(yt.deref(entry).node, yt.YMap):
            continue
        keys = []
        for name, v in yt.map_items(entry):
            n = yt.deref(v).node
            vals = [yt.scalar_tstr(doc, i) for i in yt.seq_items(v) if isinstance(yt.deref(i).node, yt.YScalar)] \
                if isinstance(n, yt.YSeq) else [yt.scalar_tstr(doc, v)] if isinstance(n, yt.YScalar) else []
            if vals and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(name)):
                keys.append((str(name), vals))
        if not keys:
            continue
        entries.append(keys)
        n = 1
        for name, vals in keys:
            n *= len(vals)
            values_of.setdefault(name, []).extend(vals)
        total += n
    roles = _role_keys(list(values_of.items()))
    combos: list = []
    seen: set = set()
    cut: set = set()  # runs not sampled whole

    def add(c: dict) -> bool:
        """Keep ``c`` (unless a kept one has its values); True when :data:`MAX_MATRIX` are kept."""
        key = tuple(sorted((k, v.text) for k, v in c.items()))
        if key not in seen:
            seen.add(key)
            combos.append(c)
        return len(combos) >= MAX_MATRIX

    if total <= MAX_MATRIX:
        for keys in entries:
            for combo in itertools.product(*(v for _, v in keys)):
                combos.append(dict(zip((k for k, _ in keys), combo)))
    else:
        # whole runs (rw31/h P8: the sample was filled with prefill-only jobs, "no server of the other role"): a
        # run is a combination of the keys that do not name the roles, with every role combination any entry
        # gives it; a run is taken whole or not at all
        texts = [({k: {v.text for v in vals} for k, vals in keys}, frozenset(k for k, _ in keys if k not in roles))
                 for keys in entries]

        def add_run(base: dict) -> bool:
            """Keep the jobs of the run ``base`` (each entry's role combinations for it); True when the sample
            is full (the run did not fit whole: not kept)."""
            new, mine, names = [], set(), frozenset(base)
            for keys, (have, plain) in zip(entries, texts):
                if len(new) > MAX_MATRIX:
                    break
                if plain != names or any(v.text not in have[k] for k, v in base.items()):
                    continue
                role_keys = [(k, v) for k, v in keys if k in roles]
                for rc in itertools.islice(itertools.product(*(v for _, v in role_keys)), MAX_MATRIX + 1):
                    c = {**base, **dict(zip((k for k, _ in role_keys), rc))}
                    key = tuple(sorted((k, v.text) for k, v in c.items()))
                    if key not in seen and key not in mine:
                        mine.add(key)
                        new.append(c)
            if len(combos) + len(new) > MAX_MATRIX:
                if combos:
                    return True
                new = new[:MAX_MATRIX]  # (one run of more jobs than the sample: its first ones)
                cut.add(tuple(sorted((k, v.text) for k, v in base.items())))
            for c in new:
                add(c)
            return len(combos) >= MAX_MATRIX

        full = False
        for keys in entries:  # each value of each key (the i-th run takes the i-th value of every key, cycling)
            plain = [(k, v) for k, v in keys if k not in roles]
            width = max((len(v) for _, v in plain), default=1)
            for i in range(min(width, MAX_MATRIX_PRODUCT)):
                full = add_run({k: v[i % len(v)] for k, v in plain})
                if full:
                    break
            if full:
                break
        for keys in entries if not full else ():  # then the other runs, in order (bounded: repeated values)
            plain = [(k, v) for k, v in keys if k not in roles]
            for combo in itertools.islice(itertools.product(*(v for _, v in plain)), 2 * MAX_MATRIX + 1):
                full = add_run(dict(zip((k for k, _ in plain), combo)))
                if full:
                    break
            if full:
                break
    runs = [tuple(sorted((k, v.text) for k, v in c.items() if k not in roles)) for c in combos]
    return combos, total, runs, cut


def matrix_plan(doc: TStr, matrix) -> tuple:
    """``(combinations, how many the runner starts, the run of each)`` of a GitHub Actions ``strategy.matrix``:
    the product of its lists of scalars less ``exclude:`` entries, then each ``include:`` entry added to every
    combination of the product whose values it does not change (its other keys may overwrite what an earlier
    entry added), or a combination of its own when it fits none - later entries are not added to those (GitHub's
    documented expansion; field test rw23/h: an include-only matrix kept its last entry only).  A value of an entry
    that is a mapping is flattened as the matrix's lists of mappings are (``cfg: {role: prefill}``: ``cfg.role``)
    and compared whole (every sub-key equal), as GitHub compares objects; an entry with a value pdlint cannot
    flatten (a list, a mapping in a mapping) for a matrix key is a combination of its own (whether it fits is not
    known), such a value opaque (rw26/h item 12: an include's ``cfg: {role: prefill, ...}`` was dropped, its
    ``extra`` merged into the decode combination).  Past :data:`MAX_MATRIX` the combinations kept are those that
    bring a value of a key no earlier one has, then the first others (`role: [decode, prefill]` with 16 shards: the
    product's first 16 are all decode), each kept combination of the other keys with every value of a key whose
    values name the roles (:func:`_role_keys`: rw26/h item 8, of `role x 16 models` 15 prefill runs and 1 decode
    were kept).  A key whose value is not a list of scalars or of mappings (an expression) is left out (its
    expression stays a value pdlint cannot see).

    The run of a combination (``meta['matrix_run']`` of its launches, :func:`pdlint.pairing.matrix_apart`): the
    values of its matrix keys other than the role keys; each combination is a runner of its own, so two runs
    whose values differ there never serve together."""
    import itertools
    if matrix is None or not isinstance(yt.deref(matrix).node, yt.YMap):
        return [], 0, []
    keys: list = []
    for name, v in yt.map_items(matrix):
        if name in ("include", "exclude"):
            continue
        items = yt.seq_items(v) if isinstance(yt.deref(v).node, yt.YSeq) else []
        vals = [yt.scalar_tstr(doc, i) for i in items if isinstance(yt.deref(i).node, yt.YScalar)]
        if not vals and items and all(isinstance(yt.deref(i).node, yt.YMap) for i in items):
            # a list of mappings (`cfg: [{role: prefill, port: 30001}, ...]`, `${{ matrix.cfg.role }}`): each
            # mapping one value, its scalar keys read as `matrix.cfg.KEY` (rw24/h: PD021 / PD023, unchecked)
            vals = [{f"{name}.{k}": yt.scalar_tstr(doc, x) for k, x in yt.map_items(i)
                     if isinstance(yt.deref(x).node, yt.YScalar)} for i in items]
        if vals and len(vals) == len(items):
            keys.append((name, vals))
    total = 1 if keys else 0
    for _, vals in keys:
        total *= len(vals)
    roles = _role_keys(keys)
    if total > MAX_MATRIX_PRODUCT:
        # (only the product's first ones are computed: the role keys last, so that they hold every role)
        keys = [k for k in keys if k[0] not in roles] + [k for k in keys if k[0] in roles]

    def flat(combo) -> dict:
        out: dict = {}
        for name, val in zip([name for name, _ in keys], combo):
            if isinstance(val, dict):
                out.update(val)
            else:
                out[name] = val
        return out

    product = itertools.product(*(vals for _, vals in keys)) if keys else iter(())
    originals = [flat(combo) for combo in itertools.islice(product, MAX_MATRIX_PRODUCT)]
    tops = [name for name, _ in keys]  # (the matrix's own keys: an entry may not change their values)

    def sig(c: dict) -> dict:  # matrix key -> its value, a mapping's whole (an include adds other keys only)
        out: dict = {}
        for k, v in c.items():
            out.setdefault(_top(k, tops), set()).add((k, v.text))
        return {top: frozenset(vals) for top, vals in out.items()}

    sigs = [sig(c) for c in originals]

    def fits(i: int, ent: dict) -> bool:  # (an include's other keys are added)
        return all(sigs[i].get(top) == vals for top, vals in ent.items() if top in tops)

    def matches(i: int, ent: dict) -> bool:  # (an exclude names matrix keys only)
        return all(top in tops and sigs[i].get(top) == vals for top, vals in ent.items())

    excludes = [ex for ex in (_entry(doc, i) for i in yt.seq_items(yt.get(matrix, "exclude"))) if ex[0]]
    for ex, opaque in excludes:
        if any(_top(k, tops) in tops for k in opaque):  # (a value pdlint cannot compare: the runs are kept)
            continue
        esig = sig(ex)
        kept = [i for i in range(len(originals)) if not matches(i, esig)]
        total -= len(originals) - len(kept)
        originals, sigs = [originals[i] for i in kept], [sigs[i] for i in kept]
    added: list = []
    includes = list(yt.seq_items(yt.get(matrix, "include")))
    total += max(0, len(includes) - MAX_MATRIX_PRODUCT)  # (entries past the bound: runs not made)
    for inc, opaque in (_entry(doc, i) for i in includes[:MAX_MATRIX_PRODUCT]):
        if not inc:
            continue
        isig = sig(inc)
        # (a matrix key's value pdlint cannot flatten: whether it fits is not known, a combination of its own)
        fit = [] if any(_top(k, tops) in tops for k in opaque) else \
            [c for i, c in enumerate(originals) if fits(i, isig)]
        for c in fit:
            c.update({k: v for k, v in inc.items() if _top(k, tops) not in tops})
        if not fit:
            added.append(dict(inc))
            total += 1
    combos = originals + added
    role_names = {k for c in combos for k in c if _top(k, tops) in roles}
    runs = [tuple(sorted((k, c[k].text) for k in c if _top(k, tops) in tops and k not in role_names))
            for c in combos]
    if len(combos) > MAX_MATRIX:  # the combinations that bring the most values not yet run, first
        from pdlint.formats.choose import most_varied
        keep = most_varied([{(k, v.text) for k, v in c.items()} for c in combos], MAX_MATRIX,
                           runs if roles else None)
        combos, runs = [combos[i] for i in keep], [runs[i] for i in keep]
    every = list(dict.fromkeys(k for c in combos for k in c))

    def value(c: dict, k: str) -> TStr:
        if k in c:
            return c[k]
        # (a key of some combinations only is the empty string in the others, as the runner evaluates it; one
        # under a value pdlint could not flatten is that value's: unknown)
        at = k.find(".")
        while at > 0:
            v = c.get(k[:at])
            if v is not None and v.opaque:
                return v
            at = k.find(".", at + 1)
        return _empty_at(doc, matrix)
    return [{f"matrix.{k}": value(c, k) for k in every} for c in combos], max(total, len(combos)), runs


#: GitHub's bound on the jobs of one matrix: a workflow whose matrix produces more is refused ("Strategy for
#: job 'NAME' produced N configurations which exceeds the maximum of 256 configurations")
GITHUB_MAX_JOBS = 256
#: GitLab's bound on the jobs of one `parallel: matrix` (gitlab-org/gitlab lib/gitlab/ci/config/entry/product/
#: matrix.rb: `Entry::Product::Parallel::PARALLEL_LIMIT`, 200; the pipeline is not created: "jobs:NAME:parallel:matrix
#: config generates too many jobs (maximum is 200)")
GITLAB_MAX_JOBS = 200


def _top(k: str, tops: list) -> str:
    """The matrix key a flattened key ``k`` (``cfg.role``) is under (``cfg``), else ``k``."""
    if k in tops:
        return k
    head = k.split(".", 1)[0]
    return head if head in tops else k


def _role_keys(keys: list) -> set:
    """The matrix keys whose values name the roles: each value (or one flattened key of each mapping value)
    names prefill or decode (:func:`pdlint.formats.crd.role_of_name`), and both are named."""
    out = set()
    for name, vals in keys:
        if len(vals) < 2:
            continue
        subs = list(dict.fromkeys(k for v in vals if isinstance(v, dict) for k in v)) if isinstance(vals[0], dict) \
            else [None]
        for sub in subs:
            named = [crd.role_of_name((v.get(sub).text if v.get(sub) is not None else "") if sub else v.text)
                     for v in vals]
            if all(named) and {"prefill", "decode"} <= set(named):
                out.add(name)
                break
    return out


def _entry(doc: TStr, item) -> tuple:
    """``(flattened values, the opaque ones' keys)`` of an ``include:`` / ``exclude:`` entry: its scalars as
    they are, the scalars of a mapping value as ``KEY.SUB``; a value pdlint cannot flatten (a list, a mapping in a
    mapping) is an opaque word named ``matrix.KEY``."""
    if not isinstance(yt.deref(item).node, yt.YMap):
        return {}, set()
    out: dict = {}
    opaque: set = set()
    for k, v in yt.map_items(item):
        if not isinstance(k, str):
            continue
        node = yt.deref(v).node
        if isinstance(node, yt.YScalar):
            out[k] = yt.scalar_tstr(doc, v)
            continue
        if isinstance(node, yt.YMap):
            for sub, x in yt.map_items(v):
                if not isinstance(sub, str):
                    continue
                if isinstance(yt.deref(x).node, yt.YScalar):
                    out[f"{k}.{sub}"] = yt.scalar_tstr(doc, x)
                else:
                    out[f"{k}.{sub}"] = _opaque_at(doc[yt.deref(x).node.start:yt.deref(x).node.start + 1],
                                                   "{{matrix." + f"{k}.{sub}" + "}}")
                    opaque.add(f"{k}.{sub}")
            continue
        out[k] = _opaque_at(doc[node.start:node.start + 1], "{{matrix." + k + "}}")
        opaque.add(k)
    return out, opaque


def _empty_at(doc: TStr, ref) -> TStr:
    """An empty value traced to the matrix (a key a combination does not have)."""
    at = yt.deref(ref).node.start
    return doc[at:at]


def named_values(doc: TStr, ref) -> dict:
    out: dict = {}
    if ref is None:
        return out
    node = yt.deref(ref).node
    pairs = list(yt.map_items(ref)) if isinstance(node, yt.YMap) else \
        [(yt.scalar_text(yt.get(i, "name")), i) for i in yt.seq_items(ref)]
    for name, v in pairs:
        if not name:
            continue
        target = yt.get(v, "value") if isinstance(yt.deref(v).node, yt.YMap) else v
        if target is not None and isinstance(yt.deref(target).node, yt.YScalar):
            out[name] = yt.scalar_tstr(doc, target)
    return out


def substitute(t: TStr, exprs: dict, dia: str, depth: int = 0) -> TStr:
    """The runner's expressions in ``t`` replaced by their values (traced), or
    by an opaque word when the value is unknown."""
    if dia == "buildkite":
        return _buildkite_escapes(t)
    braces = dia in ("argo", "ansible")  # `{{ x }}` (Argo's parameters, Ansible's Jinja), else `${{ x }}`
    pattern = _ARGO_EXPR if braces else _GH_EXPR
    text = t.text
    if ("${{" not in text and not braces) or (braces and "{{" not in text and (dia != "ansible" or "{%" not in text)):
        return t
    if dia == "ansible" and depth < 8 and ("{%" in text or any(
            not _SIMPLE_EXPR.fullmatch(e) for e in _ARGO_EXPR.findall(text, 0, 20_000))):
        # a statement or an expression beyond a name, a literal and a default (`{% if spec %}`, `{{ 'x' if spec
        # else '' }}`): rendered as Ansible renders it, when every name it uses is known (field test rw22/h item 15)
        rendered = _ansible_render(t, exprs, depth)
        if rendered is not None:
            return rendered
    if dia == "ansible" and "{%" in text:
        pattern = _ANSIBLE_EXPR
    parts, last = [], 0
    block_at, depth_in, shown = -1, 0, ""  # an Ansible `{% if %}...{% endif %}` skipped: its start, nesting, tag
    for m in pattern.finditer(text, 0, max(text.rfind("}}"), text.rfind("%}")) + 2):  # (linear)
        if m.group(1) is None or block_at >= 0:
            # an Ansible `{% ... %}` statement: what a block decides is not seen, so the whole block (from its
            # `{% if %}` to its `{% endif %}`) is one opaque word, as is a statement of its own (field test
            # rw21/h: `{% if use_nixl %}--disaggregation-transfer-backend nixl{% endif %}` was seven SGL011)
            word = _STATEMENT.match(m.group(0)).group(1) if m.group(1) is None else ""
            if block_at < 0:
                parts.append(t[last:m.start()])
                block_at = m.start()  # (shown as one word: the shell splits the placeholder's text)
                shown = "{%" + re.sub(r"[^\w.]+", "_", m.group(0)[2:-2].strip(" -+"))[:60] + "%}"
            if word in _BLOCKS or (word == "set" and "=" not in m.group(0)):
                depth_in += 1
            elif word.startswith("end"):
                depth_in -= 1
            if depth_in > 0:
                continue
            parts.append(_opaque_at(t[block_at:m.end()], shown))
            block_at, depth_in, last = -1, 0, m.end()
            continue
        parts.append(t[last:m.start()])
        use = t[m.start():m.end()]
        expr = re.sub(r"\s+", "", m.group(1))
        value = exprs.get(expr)
        if value is not None and depth < 8:
            value = substitute(value, exprs, dia, depth + 1)
        if value is None and dia == "sflow" and depth < 8:
            value = _sflow_expression(m.group(1), exprs, use, depth)
        if value is None and dia == "ansible" and depth < 8:
            value = _ansible_expression(m.group(1), m.start(1), t, exprs, depth)
        if value is not None and (not value.opaque or (dia == "argo" and value.text)):
            # (Argo: an argument a step passes that pdlint cannot read, `{{steps.x.outputs.result}}`, stays the
            # step's word, reported where it is written)
            parts.append(value.reached_via(use, use.text.strip()) if value.text else TStr("", ()))
        else:
            p = use.pieces[0] if use.pieces else None
            shown = "{{" + re.sub(r"[^\w.]+", "_", m.group(1).strip()) + "}}"
            parts.append(TStr.at(shown, p.src if p else None, p.offset if p else 0, p.chain if p else (),
                                 opaque=True, label=p.label if p else ""))
        last = m.end()
    if block_at >= 0:  # a block never closed: opaque to the end
        parts.append(_opaque_at(t[block_at:], shown))
        return TStr.join(parts)
    parts.append(t[last:])
    return TStr.join(parts)


#: an Ansible expression the substitution above reads itself: a (dotted) name, a literal, a name's default
_SIMPLE_EXPR = lazyre.compile(r"""\s*(?:[A-Za-z_][A-Za-z0-9_.]*|'[^'\\]*'|"[^"\\]*"|"""
                          r"""[A-Za-z_][A-Za-z0-9_]*\s*\|\s*(?:default|d)\s*\([^()]*\))\s*""")
_YAML_TRUE = ("true", "yes", "on")
_YAML_FALSE = ("false", "no", "off")
#: task strings rendered with Jinja: their size
_MAX_RENDERED_TASK = 20_000


def _ansible_render(t: TStr, exprs: dict, depth: int) -> Optional[TStr]:
    """An Ansible task string rendered with the sandboxed Jinja and the ``ansible`` preset (the one the
    ``template:`` tasks use), with the variables ``exprs`` gives (the play's, its blocks' and the task's, the
    inventory's, the role's), each piece of the output traced to where it is written; None when the text uses
    a name ``exprs`` does not give (a fact, an extra var: the caller keeps it opaque), includes anything, or
    does not render."""
    if len(t.text) > _MAX_RENDERED_TASK:
        return None
    from pdlint.render.jinja import JinjaOptions, Limits, OStr, _jinja, render_template
    from pdlint.render.ansible import Opaque
    from pdlint.text import SourceFile
    jinja2 = _jinja()
    import jinja2.meta
    try:
        tree = jinja2.sandbox.ImmutableSandboxedEnvironment().parse(t.text)
        names = jinja2.meta.find_undeclared_variables(tree)
    except Exception:  # (any syntax error: the caller's opaque words)
        return None
    if any(True for _ in tree.find_all((jinja2.nodes.Include, jinja2.nodes.Import, jinja2.nodes.FromImport,
                                        jinja2.nodes.Extends))):
        return None
    ctx: dict = {}
    for name in sorted(names):
        v = exprs.get(name)
        if v is None:
            return None
        if "{{" in v.text or "{%" in v.text:
            v = substitute(v, exprs, "ansible", depth + 1)
            ctx[name] = Opaque("$" + name) if any(p.opaque for p in v.pieces) else OStr(v)
        else:
            ctx[name] = _typed(v)
    src = SourceFile("<ansible task>", t.text)
    try:
        renders, problems, _ = render_template(
            src, "<ansible task>", root=".", cwd=".", variables=ctx, role_var=None, role_vars={},
            limits=Limits(render_seconds=2.0, max_output=200_000, max_file_bytes=_MAX_RENDERED_TASK),
            read_file=lambda path: None, options=JinjaOptions.for_preset("ansible"), given=frozenset(ctx))
    except MemoryError:
        raise
    except Exception:
        return None
    if problems or len(renders) != 1:
        return None
    return _rebase(renders[0].text, src, t)


def _typed(v: TStr):
    """A variable's value as Ansible's YAML gives it: a plain ``true`` / ``no`` a boolean, digits an int (each
    remembering where it is written), anything else (a quoted scalar, an INI inventory's value) a string."""
    from pdlint.render.jinja import OInt, OStr
    p = v.pieces[0] if v.pieces else None
    src = p.src if p is not None else None
    quoted = src is None or (p.offset > 0 and src.text[p.offset - 1:p.offset] in ("'", '"'))
    if quoted or not str(getattr(src, "path", "")).endswith((".yml", ".yaml")):
        return OStr(v)
    word = v.text.strip()
    if word.lower() in _YAML_TRUE or word.lower() in _YAML_FALSE:
        return word.lower() in _YAML_TRUE
    if re.fullmatch(r"[-+]?[0-9]{1,18}", word):
        return OInt(int(word), v)
    return OStr(v)


def _rebase(out: TStr, src, t: TStr) -> TStr:
    """``out`` (rendered from ``src``, whose text is ``t``'s) with what came from ``src`` placed where ``t``
    is written."""
    parts, at = [], 0
    n = len(t.text)
    for p in out.pieces:
        if p.start > at:
            parts.append(TStr(out.text[at:p.start], ()))
        text = out.text[p.start:p.end]
        if p.src is src:
            if p.exact and not p.opaque and t.text[p.offset:p.offset + len(text)] == text:
                parts.append(t.span(p.offset, p.offset + len(text)))
            else:
                q = t.span(min(p.offset, n - 1), min(p.offset, n - 1) + 1).pieces if n else ()
                q0 = q[0] if q else None
                parts.append(TStr.at(text, q0.src if q0 else None, q0.offset if q0 else 0, q0.chain if q0 else (),
                                     exact=False, opaque=p.opaque, label=q0.label if q0 else ""))
        else:
            parts.append(TStr(text, (Piece(0, len(text), p.src, p.offset, p.chain, p.exact, p.opaque, p.label),)))
        at = p.end
    if at < len(out.text):
        parts.append(TStr(out.text[at:], ()))
    return TStr.join(parts)


def _opaque_at(use: TStr, shown: str) -> TStr:
    """One opaque word ``shown``, placed where ``use`` starts."""
    p = use.pieces[0] if use.pieces else None
    return TStr.at(shown, p.src if p else None, p.offset if p else 0, p.chain if p else (), opaque=True,
                   label=p.label if p else "")


def _ansible_expression(expr: str, at: int, t: TStr, exprs: dict, depth: int) -> Optional[TStr]:
    """An Ansible task's ``{{ 'literal' }}`` or ``{{ name | default('value') }}`` (``d(...)``, ``default(omit)``:
    nothing) as Ansible renders it, the literal traced to where it is written (``at``: where ``expr`` starts in
    ``t``); None for any other expression (opaque).  Field test rw21/h: `{{ extra | default('') }}` with `extra` in
    the play's vars was an opaque word, its flag unchecked."""
    m = _ANSIBLE_LITERAL.fullmatch(expr)
    if m:
        g = 1 if m.group(1) is not None else 2
        return t[at + m.start(g):at + m.end(g)]
    m = _ANSIBLE_DEFAULT.fullmatch(expr)
    if not m:
        return None
    value = exprs.get(m.group(1))
    if value is not None:
        return substitute(value, exprs, "ansible", depth + 1)
    if m.group(4):  # default(omit): the module argument is left out; in a string, nothing
        return TStr("", ())
    g = 2 if m.group(2) is not None else 3
    return t[at + m.start(g):at + m.end(g)]


def _buildkite_escapes(t: TStr) -> TStr:
    """Buildkite's ``$$`` (a ``$`` the pipeline upload leaves for the shell: ``for _ in $$(seq 1 180)``,
    ``vllm serve $$MODEL``) read as the ``$`` the job's shell sees, every other character traced."""
    text = t.text
    if "$$" not in text:
        return t
    parts, last, i = [], 0, text.find("$$")
    while i >= 0:
        parts.append(t[last:i + 1])
        last = i + 2
        i = text.find("$$", last)
    parts.append(t[last:])
    return TStr.join(parts)


_SFLOW_VAR = lazyre.compile(r"\bvariables\.([A-Za-z_][A-Za-z0-9_]*)")
_SFLOW_SAFE = lazyre.compile(r"^[\w\s.,\[\]()+\-*/%|<>=!]*$")  # arithmetic, lists, filters: no strings, no calls out


def _sflow_expression(expr: str, exprs: dict, use: TStr, depth: int) -> Optional[TStr]:
    """An sflow ``${{ ... }}`` expression over known ``variables`` only (``[variables.A //
    variables.B, 1] | max``), evaluated as sflow does (a Jinja expression) in Jinja's
    immutable sandbox; None when it names anything else or a variable with no known value."""
    names = _SFLOW_VAR.findall(expr)
    rest = _SFLOW_VAR.sub("", expr)
    if not names or not _SFLOW_SAFE.match(expr) or re.search(r"\b(?!max\b|min\b|int\b|float\b|abs\b|round\b|"
                                                                r"sum\b|length\b|and\b|or\b|not\b|if\b|else\b)"
                                                                r"[A-Za-z_]\w*", rest):
        return None
    ns = {}
    for n in names:
        v = exprs.get(f"variables.{n}")
        if v is None:
            return None
        v = substitute(v, exprs, "sflow", depth + 1)
        if v.opaque or any(p.opaque for p in v.pieces):
            return None
        t = v.text.strip()
        ns[n] = int(t) if re.fullmatch(r"-?\d+", t) else float(t) if re.fullmatch(r"-?\d+\.\d*", t) else \
            {"true": True, "false": False}.get(t.lower(), t)
    try:
        from jinja2.sandbox import ImmutableSandboxedEnvironment
        result = ImmutableSandboxedEnvironment().compile_expression(expr)(variables=ns)
    except Exception:  # noqa: BLE001 - any failure: the value stays unknown
        return None
    if result is None or isinstance(result, (dict, list, tuple)):
        return None
    text = ("true" if result else "false") if isinstance(result, bool) else str(result)
    p = use.pieces[0] if use.pieces else None
    if p is None:
        return None
    return TStr.at(text, p.src, p.offset, p.chain, exact=False, label=p.label)

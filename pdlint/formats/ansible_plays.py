"""The plays of the repository's Ansible playbooks that render a Jinja template, and the variables each
gives it (read statically: nothing is run, no lookup is made).

A template is rendered by a play when one of the play's tasks is an ``ansible.builtin.template`` /
``template`` task whose literal ``src`` resolves to it (Ansible looks in the playbook directory's
``templates/`` and then in the playbook directory), or, for a role's template
(``roles/<role>/templates/...``), when the play applies the role (``roles:``, ``include_role`` /
``import_role``).  Per play, the variables come in Ansible's precedence, lowest first:

* ``low``: the inventory's ``group_vars/all`` and ``group_vars/<group>`` (a play on one group),
  ``host_vars/<host>`` (a play on one host), then the play's ``vars:`` and its ``vars_files:``;
* ``high`` (above a role's ``vars/main.yml``): the task's ``vars:``, the literal ``include_vars`` and
  ``set_fact`` tasks of the play, and a role's parameters (``roles: [{role: x, port: 1}]``).

Values are untrusted YAML: every file is read through the caller's reader (inside the repository,
under its size limits), the walk is bounded (:data:`MAX_PLAYBOOKS` files, :data:`MAX_TASKS` tasks,
:data:`MAX_NESTING` levels of blocks), and a value that is itself a template stays a value pdlint cannot
see (the caller makes it opaque).  Field test rw18/o (repro 7): a systemd unit rendered by two plays
(``vars: {sglang_role, sglang_port, model_path}``) had PD005 errors for the plays' variables.
"""

from __future__ import annotations

import os
import re
from typing import Callable, Optional

from pdlint import lazyre
from pdlint.formats import yamltree as yt
from pdlint.records import dataclass, field

#: candidate playbook files parsed per template: the YAML files of its directory and the ones above it that
#: name the role (or the template) and `hosts` (a substring test on the text picks them, not the name order)
MAX_PLAYBOOKS = 64
#: YAML files looked at (read and searched for the role's name) per template
MAX_SCANNED = 1024
#: directories above the template searched for playbooks
MAX_LEVELS = 6
#: tasks looked at per playbook, and nesting of blocks
MAX_TASKS = 4000
MAX_NESTING = 8
#: plays (distinct variable sets) a template is rendered for
MAX_PLAYS = 8
#: plays gathered per template (before those giving the same variables are merged)
MAX_FOUND = 64
#: group_vars / host_vars / vars files read per play
MAX_VAR_FILES = 32

TEMPLATE_MODULES = ("template", "ansible.builtin.template", "ansible.legacy.template")
ROLE_MODULES = ("include_role", "import_role", "ansible.builtin.include_role", "ansible.builtin.import_role",
                "ansible.legacy.include_role", "ansible.legacy.import_role")
SET_FACT = ("set_fact", "ansible.builtin.set_fact", "ansible.legacy.set_fact")
INCLUDE_VARS = ("include_vars", "ansible.builtin.include_vars", "ansible.legacy.include_vars")
_TASK_LISTS = ("pre_tasks", "tasks", "post_tasks", "handlers")
_BLOCK_LISTS = ("block", "rescue", "always")
_YAML = (".yml", ".yaml")
#: keys of a play's `roles:` entry that are no role parameters
_ROLE_KEYWORDS = ("role", "name", "vars", "tags", "when", "become", "become_user", "delegate_to", "environment",
                  "ignore_errors", "tasks_from", "defaults_from", "vars_from", "public", "apply", "collections")
_NAME = lazyre.compile(r"[A-Za-z0-9_.-]+")
_KV = lazyre.compile(r"""([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)""")
#: where a repository keeps the inventory's variables, relative to the playbook's directory or one above it
INVENTORY_DIRS = ("", "inventory")


@dataclass
class Layer:
    """A mapping of variables: the whole file ``src`` (``ref`` None) or the mapping at ``ref`` in it."""
    src: object  # SourceFile
    ref: Optional[yt.Ref] = None
    doc: Optional[object] = None  # the composed document (for ``ref``)
    skip: tuple = ()  # keys that are no variables (a role entry's `role:`, `when:` ...)
    pairs: tuple = ()  # an INI inventory's `[group:vars]` lines: ((name, start, end) of each value in src.text)


@dataclass
class Play:
    playbook: str  # abspath
    line: int
    hosts: str
    low: list = field(default_factory=list)  # [Layer], below a role's vars
    high: list = field(default_factory=list)  # [Layer], above them

    offset: int = 0  # where the play starts in its playbook

    def label(self, display: str) -> str:
        return f"play 'hosts: {self.hosts}' of {display}:{self.line}"


@dataclass
class Found:
    """What :func:`search_plays` found: the plays (at most :data:`MAX_FOUND`); ``over``: the first play past
    them (None: none); ``unread``: candidate playbooks that name the role (or the template) not parsed, past
    :data:`MAX_PLAYBOOKS`; ``unscanned``: there were more than :data:`MAX_SCANNED` YAML files to look at.  The
    plays that render the template may be among those not read."""
    plays: list = field(default_factory=list)
    over: Optional[Play] = None
    unread: int = 0
    unscanned: bool = False


def plays_rendering(template: str, role_dir: Optional[str], root: str,
                    read: Callable[[str], Optional[object]], listdir: Callable[[str], list]) -> list:
    """The plays (:class:`Play`) of the playbooks in the template's directory and the ones above it (inside
    ``root``) that render ``template``; ``read(abspath)`` gives a SourceFile or None, ``listdir(dir)`` the
    names in a directory (empty when it is none)."""
    return search_plays(template, role_dir, root, read, listdir).plays


def search_plays(template: str, role_dir: Optional[str], root: str,
                 read: Callable[[str], Optional[object]], listdir: Callable[[str], list]) -> Found:
    """:func:`plays_rendering`, and what it could not look at (:class:`Found`).  Field test rw22/h (items
    7, 8): a ninth play, and a play in a playbook after 64 other YAML files, were dropped with no word."""
    template = os.path.abspath(template)
    role = os.path.basename(role_dir) if role_dir else None
    # (a role that is the repository itself, `ansible-galaxy init` layout: its own directory and tests/test.yml)
    start = (os.path.dirname(role_dir) if os.path.abspath(role_dir) != os.path.abspath(root) else role_dir) \
        if role_dir else os.path.dirname(template)
    word = role if role else os.path.basename(template)
    out = Found()
    budget = [MAX_TASKS]
    candidates = _candidates(start, root, listdir)
    out.unscanned = len(candidates) > MAX_SCANNED
    parsed = 0
    for path in candidates[:MAX_SCANNED]:
        src = read(path)
        # (the substring test: a file that does not name the role, or has no play, costs no parse)
        if src is None or word not in src.text or "hosts" not in src.text:
            continue
        if parsed >= MAX_PLAYBOOKS:
            out.unread += 1
            continue
        parsed += 1
        try:
            docs = yt.compose(src.text)
        except (yt.YamlError, RecursionError):
            continue
        for d in docs[:4]:
            if d.root is None or not isinstance(yt.deref(yt.Ref(d.root)).node, yt.YSeq):
                continue
            for item in yt.seq_items(yt.Ref(d.root))[:64]:
                try:
                    play = _play(item, d, src, path, template, role, root, read, listdir, budget)
                except (yt.YamlError, RecursionError):
                    play = None
                if play is not None:
                    if len(out.plays) >= MAX_FOUND:
                        out.over = play
                        return out
                    out.plays.append(play)
    return out


def _candidates(start: str, root: str, listdir) -> list:
    """The YAML files of ``start``, its ``playbooks/`` and ``tests/`` and of the directories above it (inside
    ``root``), at most :data:`MAX_SCANNED` + 1 (one more: some were left)."""
    out: list = []
    d = start
    for _ in range(MAX_LEVELS):
        if not (d == root or d.startswith(root + os.sep)):
            break
        for sub in ("", "playbooks", "tests"):  # (tests/test.yml: an `ansible-galaxy init` role's play)
            base = os.path.join(d, sub) if sub else d
            for n in sorted(listdir(base)):
                if n.endswith(_YAML) and not n.startswith("."):
                    out.append(os.path.join(base, n))
                    if len(out) > MAX_SCANNED:
                        return out
        if d == root or os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    return out


def _play(item: yt.Ref, d, src, path: str, template: str, role: Optional[str], root: str, read, listdir,
          budget: list) -> Optional[Play]:
    if not isinstance(yt.deref(item).node, yt.YMap):
        return None
    hosts = play_hosts(item)
    if hosts is None:
        return None
    pbdir = os.path.dirname(path)
    found: list = []  # [(task ref, its vars Layer or None)]
    high: list = []
    role_params: list = []
    if role:
        for r in yt.seq_items(yt.get(item, "roles"))[:64]:
            name = yt.scalar_text(r) if not isinstance(yt.deref(r).node, yt.YMap) else \
                yt.scalar_text(yt.get(r, "role")) or yt.scalar_text(yt.get(r, "name"))
            if _is_role(name, role):
                found.append(r)
                if isinstance(yt.deref(r).node, yt.YMap):
                    v = yt.get(r, "vars")
                    if v is not None:
                        role_params.append(Layer(src, v, d))
                    role_params.append(Layer(src, r, d, _ROLE_KEYWORDS))  # its other keys: role parameters
    facts: list = []

    def walk(tasks: Optional[yt.Ref], depth: int) -> None:
        if tasks is None or depth > MAX_NESTING:
            return
        for t in yt.seq_items(tasks):
            budget[0] -= 1
            if budget[0] < 0 or not isinstance(yt.deref(t).node, yt.YMap):
                return
            keys = [k for k, _ in yt.map_items(t)]
            for k in _BLOCK_LISTS:
                if k in keys:
                    walk(yt.get(t, k), depth + 1)
            for k in keys:
                if k in TEMPLATE_MODULES and _renders(yt.get(t, k), yt.get(t, "args"), pbdir, template):
                    found.append(t)
                    v = yt.get(t, "vars")
                    if v is not None:
                        high.append(Layer(src, v, d))
                elif role and k in ROLE_MODULES:
                    name = _arg(yt.get(t, k), yt.get(t, "args"), "name")
                    if _is_role(name, role):
                        found.append(t)
                        v = yt.get(t, "vars")
                        if v is not None:
                            high.append(Layer(src, v, d))
                elif k in SET_FACT and yt.get(t, k) is not None and isinstance(yt.deref(yt.get(t, k)).node,
                                                                              yt.YMap):
                    facts.append(Layer(src, yt.get(t, k), d, ("cacheable",)))
                elif k in INCLUDE_VARS:
                    name = _arg(yt.get(t, k), yt.get(t, "args"), "file", free=True)
                    f = _in_repo(name, (os.path.join(pbdir, "vars"), pbdir), root)
                    if f:
                        vsrc = read(f)
                        if vsrc is not None:
                            facts.append(Layer(vsrc))

    for key in _TASK_LISTS:
        walk(yt.get(item, key), 0)
    if not found:
        return None
    inventory, files = play_files(item, hosts, pbdir, root, read, listdir)
    low = list(inventory)
    v = yt.get(item, "vars")
    if v is not None and isinstance(yt.deref(v).node, yt.YMap):
        low.append(Layer(src, v, d))
    low += files
    start = yt.deref(item).node.start
    return Play(path, src.position(start)[0], hosts or "?", low, high + facts[:MAX_VAR_FILES] + role_params,
                start)


def play_hosts(item: yt.Ref) -> Optional[str]:
    """A play's ``hosts:`` (a list joined by commas), None when it has none."""
    ref = yt.get(item, "hosts")
    if ref is None:
        return None
    hosts = yt.scalar_text(ref)
    if hosts is None:
        hosts = ",".join(x for x in (yt.scalar_text(r) for r in yt.seq_items(ref)[:16]) if x)
    return hosts


def play_files(item: yt.Ref, hosts: Optional[str], pbdir: str, root: str, read, listdir) -> tuple:
    """(the inventory's layers, the ``vars_files:`` layers) a play gives its tasks: below and above the
    play's own ``vars:`` in Ansible's precedence."""
    groups = [g for g in re.split(r"[:,\s]+", hosts or "") if g]
    files: list = []
    for f in yt.seq_items(yt.get(item, "vars_files"))[:MAX_VAR_FILES]:
        p = _in_repo(yt.scalar_text(f), (pbdir,), root)
        vsrc = read(p) if p else None
        if vsrc is not None:
            files.append(Layer(vsrc))
    return _inventory(pbdir, root, groups, read, listdir), files


def _is_role(name: Optional[str], role: str) -> bool:
    """Does a role reference (``sglang``, ``roles/sglang``, ``acme.llm.sglang``) name the role directory
    ``role``?"""
    if not name:
        return False
    base = name.replace("\\", "/").rstrip("/").split("/")[-1]
    return role in (base, base.split(".")[-1])


def _arg(ref: Optional[yt.Ref], args: Optional[yt.Ref], key: str, free: bool = False) -> Optional[str]:
    """A task's argument ``key``: from its mapping, its ``args:``, or its ``k=v`` string (the free form's
    first word when ``free``)."""
    if ref is None:
        return None
    if isinstance(yt.deref(ref).node, yt.YMap):
        return yt.scalar_text(yt.get(ref, key))
    text = yt.scalar_text(ref)
    if text is None:
        return None
    for k, v in _KV.findall(text):
        if k == key:
            return v.strip("\"'")
    if args is not None and isinstance(yt.deref(args).node, yt.YMap):
        return yt.scalar_text(yt.get(args, key))
    if free and text.strip() and "=" not in text.split()[0]:
        return text.split()[0]
    return None


def _renders(ref, args, pbdir: str, template: str) -> bool:
    src = _arg(ref, args, "src")
    if not src or "{{" in src or "{%" in src or os.path.isabs(src):
        return False
    return any(os.path.normpath(os.path.join(base, src)) == template
               for base in (os.path.join(pbdir, "templates"), pbdir))


def _in_repo(name: Optional[str], bases: tuple, root: str) -> Optional[str]:
    if not name or "{{" in name or "{%" in name or os.path.isabs(name) or "\0" in name:
        return None
    for base in bases:
        p = os.path.normpath(os.path.join(base, name))
        if p.startswith(root + os.sep) and os.path.isfile(p):
            return p
    return None


#: inventory files read per play (INI or YAML: `inventory*`, `hosts*`, the files of an `inventory/` directory,
#: what an `ansible.cfg` names), groups and nodes looked at in one
MAX_INVENTORY_FILES = 16
MAX_INVENTORY_GROUPS = 512
_INI_SECTION = lazyre.compile(r"\[([^\]:\s]+)(?::(\w+))?\]")
_INI_VAR = lazyre.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(.*?)[ \t]*$")
_CFG_INVENTORY = lazyre.compile(r"(?m)^[ \t]*inventory[ \t]*[=:][ \t]*(.*?)[ \t]*$")
_NOT_INVENTORY = (".j2", ".jinja", ".jinja2", ".tpl", ".py", ".sh", ".md", ".json", ".txt", ".retry", ".bak")


def inventory_files(d: str, root: str, read, listdir) -> list:
    """The inventory files a directory (inside ``root``) holds: ``inventory*`` / ``hosts*`` files, the files
    of an ``inventory/`` (``inventories/``) directory in it, and what its ``ansible.cfg``'s ``inventory =``
    names (a file, or a directory's files), in that order, at most :data:`MAX_INVENTORY_FILES`; none outside
    ``root``."""
    out: list = []

    def add(path: str) -> None:
        path = os.path.normpath(path)
        if path not in out and path.startswith(root + os.sep) and len(out) < MAX_INVENTORY_FILES \
                and not path.lower().endswith(_NOT_INVENTORY) and os.path.isfile(path):
            out.append(path)

    def add_dir(path: str) -> None:
        for n in listdir(path)[:64]:
            if not n.startswith(".") and n not in ("group_vars", "host_vars"):
                add(os.path.join(path, n))

    names = listdir(d)
    for n in names:
        low = n.lower()
        if low.startswith(("inventory", "hosts")) and not n.startswith("."):
            p = os.path.join(d, n)
            add_dir(p) if os.path.isdir(p) and low in ("inventory", "inventories", "hosts") else add(p)
    if "ansible.cfg" in names:
        src = read(os.path.join(d, "ansible.cfg"))
        m = _CFG_INVENTORY.search(src.text) if src is not None else None
        for name in (m.group(1).split(",") if m else [])[:8]:
            name = name.strip().strip("\"'")
            if not name or os.path.isabs(name) or name.startswith("~") or "$" in name or "\0" in name:
                continue
            p = os.path.normpath(os.path.join(d, name))
            if p.startswith(root + os.sep):
                add_dir(p) if os.path.isdir(p) else add(p)
    return out


def inventory_names(src) -> set:
    """The names of the group variables an inventory file (INI or YAML) sets."""
    out: set = set()
    for layers in parse_inventory(src)[0].values():
        for layer in layers:
            if layer.pairs:
                out.update(k for k, _, _ in layer.pairs)
            else:
                out.update(k for k, _ in yt.map_items(layer.ref) if isinstance(k, str))
    return out


def _inventory_file(src, group: Optional[str]) -> list:
    """Layers of an inventory file (INI or YAML) for a play on ``group`` (None: on several, or on `all`):
    ``all``'s variables, then those of the groups ``group`` is a child of (the farthest first), then its
    own; [] for a file that is no inventory."""
    vars_of, parents = parse_inventory(src)
    if not vars_of:
        return []
    chain: list = []  # the group and its ancestors, nearest first (bounded: a cycle stops)
    todo = [group] if group and group != "all" else []
    while todo and len(chain) < 64:
        g = todo.pop(0)
        if g in chain or g == "all":
            continue
        chain.append(g)
        todo += parents.get(g, [])
    out = list(vars_of.get("all", []))
    for g in reversed(chain):
        out += vars_of.get(g, [])
    return out


def parse_inventory(src) -> tuple:
    """({group: [Layer of its variables]}, {group: [its parent groups]}) of an inventory file, INI or YAML
    (empty for a file that is no inventory); raises nothing on hostile text (bounded)."""
    vars_of: dict = {}  # group -> [Layer]
    parents: dict = {}  # group -> [parent group]
    text = src.text
    if src.path.endswith(_YAML) or not _INI_SECTION.search(text):
        try:
            docs = yt.compose(text, max_nodes=20_000)
        except (yt.YamlError, RecursionError):
            return {}, {}
        if not docs or docs[0].root is None or not isinstance(yt.deref(yt.Ref(docs[0].root)).node, yt.YMap):
            return {}, {}
        d = docs[0]
        seen = [0]

        def walk(name: str, ref, parent: Optional[str], depth: int) -> None:
            seen[0] += 1
            if seen[0] > MAX_INVENTORY_GROUPS or depth > MAX_NESTING or ref is None \
                    or not isinstance(yt.deref(ref).node, yt.YMap):
                return
            if parent is not None:
                parents.setdefault(name, []).append(parent)
            v = yt.get(ref, "vars")
            if v is not None and isinstance(yt.deref(v).node, yt.YMap):
                vars_of.setdefault(name, []).append(Layer(src, v, d))
            kids = yt.get(ref, "children")
            if kids is not None and isinstance(yt.deref(kids).node, yt.YMap):
                for k, sub in yt.map_items(kids)[:MAX_INVENTORY_GROUPS]:
                    if isinstance(k, str):
                        walk(k, sub, name, depth + 1)

        top = yt.map_items(yt.Ref(d.root))
        if not any(isinstance(yt.deref(v).node, yt.YMap) and any(k in ("hosts", "children", "vars")
                                                                 for k, _ in yt.map_items(v))
                   for _, v in top[:64]):
            return {}, {}  # (no group in it: a vars file or anything else)
        for k, v in top[:MAX_INVENTORY_GROUPS]:
            if isinstance(k, str):
                walk(k, v, None, 0)
    else:
        section, kind, spans = None, None, []
        pos = 0
        for line in text.split("\n")[:20_000]:
            start, pos = pos, pos + len(line) + 1
            body = line.strip()
            if not body or body[0] in "#;":
                continue
            m = _INI_SECTION.fullmatch(body)
            if m:
                if kind == "vars" and spans:
                    vars_of.setdefault(section, []).append(Layer(src, pairs=tuple(spans)))
                section, kind, spans = m.group(1), m.group(2), []
                continue
            if section is None:
                continue
            if kind == "vars":
                v = _INI_VAR.match(line.lstrip())
                if v:
                    off = start + len(line) - len(line.lstrip())
                    a, b = off + v.start(2), off + v.end(2)
                    if b - a >= 2 and text[a] == text[b - 1] and text[a] in "\"'":
                        a, b = a + 1, b - 1  # (a quoted value: its text)
                    spans.append((v.group(1), a, b))
            elif kind == "children" and len(parents) < MAX_INVENTORY_GROUPS:
                parents.setdefault(body.split()[0], []).append(section)
        if kind == "vars" and spans:
            vars_of.setdefault(section, []).append(Layer(src, pairs=tuple(spans)))
    return vars_of, parents


def _inventory(pbdir: str, root: str, groups: list, read, listdir) -> list:
    """Layers of ``group_vars/all``, ``group_vars/<group>`` (a play on one group) and ``host_vars/<host>`` (a
    play on one host or group name), from the directory farthest above the playbook down to its own (the
    nearer wins), each as a file ``NAME.yml`` or a directory ``NAME/*.yml``.  A play on several groups
    gets ``all`` only: the others' values depend on the host (the names stay values pdlint cannot see)."""
    dirs: list = []
    d = pbdir
    for _ in range(MAX_LEVELS):
        dirs.append(d)
        if d == root or not d.startswith(root + os.sep):
            break
        d = os.path.dirname(d)
    names = [("group_vars", "all")]
    one = groups[0] if len(groups) == 1 and _NAME.fullmatch(groups[0]) and groups[0] != "all" else None
    if one:
        names += [("group_vars", groups[0]), ("host_vars", groups[0])]
    out: list = []
    # the inventory files' group variables, below every group_vars/ file (Ansible's precedence: an inventory
    # file's group vars < group_vars/all < group_vars/<group>; field test rw22/h item 9: `[prefill:vars]` in
    # inventory.ini and `children: prefill: vars:` in hosts.yml were ignored, the role default taken as final)
    files = 0
    for base in reversed(dirs):
        for f in inventory_files(base, root, read, listdir):
            files += 1
            s = read(f) if files <= MAX_INVENTORY_FILES else None
            if s is not None:
                try:
                    out += _inventory_file(s, one)
                except (yt.YamlError, RecursionError):
                    pass
    out = out[-MAX_VAR_FILES:]  # (lowest first: the files that win kept)
    for base in reversed(dirs):
        for inv in INVENTORY_DIRS:
            for kind, name in names:
                here = os.path.join(base, inv, kind) if inv else os.path.join(base, kind)
                entries = listdir(here)
                files = [os.path.join(here, n) for n in sorted(entries)
                         if n in (name, name + ".yml", name + ".yaml")]
                if name in entries:
                    sub = os.path.join(here, name)
                    files = [os.path.join(sub, n) for n in sorted(listdir(sub)) if n.endswith(_YAML)]
                for f in files[-MAX_VAR_FILES:]:  # (a directory's files in name order, the last winning)
                    s = read(f) if os.path.isfile(f) else None
                    if s is not None:
                        out.append(Layer(s))
    return out[-2 * MAX_VAR_FILES:]

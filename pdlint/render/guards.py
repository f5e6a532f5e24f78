"""Size guards for the Jinja sandbox (docs/safety.md, layer 1).

A signal cannot interrupt one long C operation (``9 ** (9 ** 9)`` computes
for minutes; ``'x' * 10 ** 9`` allocates a gigabyte in one call), so the
operations whose result size an argument chooses are checked *before* they
run: the arithmetic operators (``**``, ``*``, ``%``, ``+``), the ``str``
methods that pad or repeat (``center``, ``ljust``, ``rjust``, ``zfill``,
``expandtabs``, ``replace``, ``format``), the filters that size their output
by an argument (``center``, ``indent``, ``format``, ``replace``, ``batch``,
``slice``), those that scan their input with a regular expression in one C
call (``striptags``, ``urlize``, Ansible's ``regex_*`` with the template's own
pattern: input length, and no repeated group that repeats) and ``lipsum``; ``range`` is the sandbox's (at most
``MAX_RANGE`` items).  A refused operation raises the sandbox's
``SecurityError``, which the renderer reports as a PD006 render error at the
template line, naming the limit.
"""

from __future__ import annotations

import functools
import re

from pdlint import lazyre

MAX_BITS = 4096  # an integer result of ** or * (a 1234-digit number)
MAX_ITEMS = 4_000_000  # characters of a string / items of a list one operation may produce
MAX_WIDTH = 100_000  # a format width or precision ("%100000s", "{:>100000}")

_PERCENT = lazyre.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_BRACE_SPEC = lazyre.compile(r"\{[^{}]*?:([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")


def _refuse(message: str):
    from jinja2.exceptions import SecurityError
    raise SecurityError(f"{message} (pdlint's limit, so that a template cannot exhaust time or memory)")


def _int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _sized(x) -> bool:
    return isinstance(x, (str, list, tuple, bytes))


def _check_items(n: int, what: str) -> None:
    if n > MAX_ITEMS:
        _refuse(f"{what} would have {n} items, more than {MAX_ITEMS}")


def binop(op: str, left, right) -> None:
    """Refuse ``left op right`` when its result would be too large."""
    if op == "**":
        if _int(left) and _int(right) and right > 0 and abs(left) > 1:
            bits = (abs(left).bit_length() - 1) * right + 1  # a lower bound of the result's size
            if right > MAX_BITS or bits > MAX_BITS:
                _refuse(f"{_short(left)} ** {_short(right)} would have more than {MAX_BITS} bits")
    elif op == "*":
        if _int(left) and _int(right):
            if left and right and abs(left).bit_length() + abs(right).bit_length() > MAX_BITS + 1:
                _refuse(f"{_short(left)} * {_short(right)} would have more than {MAX_BITS} bits")
        elif _sized(left) and _int(right):
            _check_items(len(left) * max(right, 0), f"a {type(left).__name__} * {_short(right)}")
        elif _int(left) and _sized(right):
            _check_items(len(right) * max(left, 0), f"{_short(left)} * a {type(right).__name__}")
    elif op == "+":
        if _sized(left) and _sized(right):
            _check_items(len(left) + len(right), f"a {type(left).__name__} + a {type(right).__name__}")
    elif op == "%" and isinstance(left, str):
        percent_format(left, right)


def _short(n) -> str:
    if _int(n) and abs(n).bit_length() > 64:
        return f"<a {abs(n).bit_length()}-bit number>"
    return repr(n)


def _width(w, what: str) -> None:
    if _int(w) and w > MAX_WIDTH:
        _refuse(f"{what} of {_short(w)} is more than {MAX_WIDTH}")


def percent_format(fmt: str, args) -> None:
    """``fmt % args``: no width or precision beyond MAX_WIDTH (``*`` takes it from the arguments)."""
    if "%" not in fmt:
        return
    star_args = list(args) if isinstance(args, tuple) else [args]
    k = 0
    for m in _PERCENT.finditer(fmt):
        for g in (m.group(1), m.group(2)):
            if g is None:
                continue
            if g == "*":
                if k < len(star_args):
                    _width(star_args[k], "a format width")
                k += 1
            elif len(g) > 6 or int(g) > MAX_WIDTH:
                _refuse(f"a format width of {g[:20]} is more than {MAX_WIDTH}")


def brace_format(fmt: str, args, kwargs) -> None:
    """``fmt.format(...)``: no width or precision beyond MAX_WIDTH in the format specs (nested fields
    such as ``{:>{w}}`` take it from the arguments)."""
    if "{" not in fmt:
        return
    nested = False
    for m in _BRACE_SPEC.finditer(fmt):
        spec = m.group(1)
        if "{" in spec:
            nested = True
        for num in re.findall(r"\d+", spec):
            if len(num) > 6 or int(num) > MAX_WIDTH:
                _refuse(f"a format width of {num[:20]} is more than {MAX_WIDTH}")
    if nested:
        for v in list(args) + list(kwargs.values()):
            _width(v, "a format width")


_PADDING = {"center", "ljust", "rjust", "zfill", "expandtabs"}


def call(obj, args, kwargs) -> None:
    """A call from the template: str methods that pad, repeat or format."""
    fn = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format
    target = getattr(fn, "__self__", None)
    if not isinstance(target, str):
        return
    name = getattr(fn, "__name__", "")
    if name in _PADDING:
        width = args[0] if args else kwargs.get("width", kwargs.get("tabsize"))
        if name == "expandtabs" and _int(width):
            _check_items(len(target) + target.count("\t") * max(width, 0), "str.expandtabs")
        elif _int(width):
            _check_items(width, f"str.{name}")
    elif name == "replace":
        _replace_size(target, *args[:3], what="str.replace")
    elif name in ("format", "format_map"):
        brace_format(target, args, kwargs if name == "format" else (args[0] if args else {}))


def _replace_size(s: str, old=None, new=None, count=-1, what: str = "replace") -> None:
    if not (isinstance(s, str) and isinstance(old, str) and isinstance(new, str)):
        return
    if len(new) <= len(old):
        return
    n = s.count(old) if old else len(s) + 1
    if _int(count) and count >= 0:
        n = min(n, count)
    _check_items(len(s) + n * (len(new) - len(old)), what)


# -- filters and globals -------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)  # made once: see install
def _filter_guards() -> dict:
    def center(value, width=80, *a, **k):
        if _int(width):
            _check_items(width, "center")

    def indent(s, width=4, *a, **k):
        s = s if isinstance(s, str) else str(s)
        per = width if _int(width) else len(width) if isinstance(width, str) else 0
        _check_items(len(s) + (s.count("\n") + 1) * max(per, 0), "indent")

    def fmt(value, *args, **kwargs):
        if isinstance(value, str):
            percent_format(value, tuple(args) if args else kwargs)

    def replace(*args, **kwargs):  # (eval_ctx, s, old, new, count)
        args = args[1:]
        s = args[0] if args else kwargs.get("s")
        rest = list(args[1:4])
        for i, key in enumerate(("old", "new", "count")):
            if len(rest) <= i:
                rest.append(kwargs.get(key, None if key != "count" else -1))
        _replace_size(str(s) if s is not None else "", rest[0], rest[1],
                      rest[2] if rest[2] is not None else -1, "replace")

    def batch(value, linecount=1, fill_with=None, *a, **k):
        if _int(linecount) and fill_with is not None:
            _check_items(linecount, "batch")

    def slice_(value, slices=1, fill_with=None, *a, **k):
        if _int(slices):
            _check_items(slices, "slice")

    def scan(*args, **kwargs):  # one C regex scan over the value: bounded by its length
        value = next((a for a in args if isinstance(a, str)), "")
        if len(value) > MAX_SCAN:
            _refuse(f"a filter that scans its input with a regular expression got {len(value)} characters, more "
                    f"than {MAX_SCAN}")

    def pattern(*args, **kwargs):  # (value, pattern, ...): the template's own regular expression too
        scan(*args)
        strings = [a for a in args if isinstance(a, str)]
        regex = strings[1] if len(strings) > 1 else kwargs.get("pattern", kwargs.get("regex", ""))
        if isinstance(regex, str) and _NESTED_QUANTIFIER.search(regex):
            _refuse(f"the regular expression {regex[:60]!r} repeats a repeated group, which can take exponential "
                    f"time")
        if isinstance(regex, str):  # overlapping alternatives or repetitions (rw27/h P20): regex_guard.py
            from pdlint.render.regex_guard import refusal
            flags = (re.I if kwargs.get("ignorecase") else 0) | (re.M if kwargs.get("multiline") else 0)
            why = refusal(regex, strings[0] if strings else "", flags)
            if why is not None:
                _refuse(why)

    return {"center": center, "indent": indent, "format": fmt, "replace": replace, "batch": batch,
            "slice": slice_, "striptags": scan, "urlize": scan, "regex_replace": pattern, "regex_search": pattern,
            "regex_findall": pattern}


#: characters a filter that runs one regular-expression scan in C may get (`striptags` is quadratic on unclosed
#: `<`: three million of them ran for minutes where no signal reaches, field test rw20/h)
MAX_SCAN = 100_000
#: a group that ends in a repetition, itself repeated (`(a+)+`, `(\w*)*`, `(x{2,})+`): catastrophic backtracking
#: (`(\d+,)*`, whose repetition a literal ends, is not)
_NESTED_QUANTIFIER = lazyre.compile(r"\((?:[^()\\]|\\.)*(?:[+*]|\{\d*,\d*\})\)(?:[+*]|\{\d*,)")


def install(env) -> None:
    """Guard the filters and globals of a sandboxed environment that size their output by an argument."""
    for name, check in _filter_guards().items():
        fn = env.filters.get(name)
        if fn is None or getattr(fn, "_pdlint_guarded", False):
            continue
        env.filters[name] = _guarded(fn, check)
    lipsum = env.globals.get("lipsum")
    if lipsum is not None:
        env.globals["lipsum"] = _guarded_lipsum(lipsum)


# the guards and the guarded functions are made once, not per environment (pdlint makes one per
# template): a wrapper depends only on the function it guards and its check


@functools.lru_cache(maxsize=None)
def _guarded_lipsum(lipsum):
    def guarded_lipsum(n=5, html=True, min=20, max=100):
        if _int(n) and _int(max):
            _check_items(n * max, "lipsum")
        return lipsum(n, html, min, max)
    return guarded_lipsum


@functools.lru_cache(maxsize=None)
def _guarded(fn, check):
    @functools.wraps(fn)  # keeps Jinja's pass_eval_context / pass_environment marks
    def wrapper(*args, **kwargs):
        check(*args, **kwargs)
        return fn(*args, **kwargs)

    wrapper._pdlint_guarded = True
    return wrapper

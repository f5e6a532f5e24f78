"""The repository is the boundary: every file pdlint reads from a repository is opened here.

Templates come from pull requests, so a file name is untrusted input: a
committed symlink can point at ``/dev/zero`` or ``../secret.yaml``, a FIFO
named ``x.yaml`` blocks a plain ``open()`` forever, a config can name
``/proc/self/status`` as a values file.  :class:`Boundary` reads a file only
when all of this holds:

* the path, with every symlink resolved, is inside the file's **root**: the
  git work tree it belongs to, else the directory pdlint was asked to scan
  (the working directory, or a directory named on the command line outside
  it); a symlink inside the root to a file inside the root is fine, one that
  leaves the root is refused;
* it is opened without following any symlink again: from the root's
  directory, one component at a time, with ``O_NOFOLLOW`` (a component
  swapped for a symlink after the check fails the open: no gap between the
  check and the read), and ``O_NONBLOCK | O_NOCTTY``, so that opening a FIFO
  or a device never blocks and never acquires a terminal;
* ``fstat`` on the opened descriptor says it is a regular file (a FIFO,
  socket, device or directory is refused before a byte is read);
* at most ``limit`` bytes (``MAX_FILE_BYTES``) are read.

A refusal is a :class:`Refused` with a reason a finding can print ("symlink
pointing outside the repository", "not a regular file (FIFO)"); nothing of
the refused file is read, so no byte of it can reach any output.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Optional

MAX_FILE_BYTES = 2_000_000
#: a file larger than MAX_FILE_BYTES, up to this, is read only to search it for launch text: one without any
#: is nothing to check (rbg's generated CRDs, 3 MB), one with it is not scanned (PD008) (pdlint.extract)
MAX_SEARCHED_BYTES = 32_000_000

#: kinds of refusal (``Refused.kind``)
OUTSIDE = "outside"  # the path (after resolving symlinks) leaves the root
SPECIAL = "special"  # not a regular file: FIFO, socket, device, directory
LOOP = "loop"  # a symlink loop
MISSING = "missing"  # no such file, or a dangling symlink
BIG = "big"  # larger than the limit
ERROR = "error"  # any other OS error (permissions, ...)

_AT = (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY") and os.open in os.supports_dir_fd
       and os.stat in os.supports_dir_fd)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_OPEN_FILE = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | \
    getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0) | _CLOEXEC


class Refused(Exception):
    """A file pdlint does not read, and why (``reason``: a phrase; ``message``: a finding's text)."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind

    @property
    def message(self) -> str:
        if self.kind == ERROR:
            return f"cannot read file: {self.reason}"
        if self.kind == BIG:
            return f"{self.reason}; not scanned"
        return f"not read: {self.reason}"


def program(name: str) -> Optional[str]:
    """The program ``name`` (git, helm, bash) as an absolute path, looked up in PATH's absolute directories only:
    an empty entry (``PATH=$PATH:$EXTRA`` with EXTRA unset) or a relative one names the current directory or one
    below it - the scanned repository, whose committed ``helm`` pdlint ran (hostile-input round rw32/h P8) - and
    none inside the repository pdlint runs in (an absolute ``<repo>/bin``: rw33/h P10).  None when no other
    directory has it."""
    if os.name == "nt":
        import shutil
        found = shutil.which(name)
        return found if found and os.path.isabs(found) else None
    repo = _working_repository()
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not d or not os.path.isabs(d):
            continue
        if repo is not None and inside(os.path.realpath(d), repo):
            continue  # (`PATH_add bin`, an in-repository venv, CI's `$GITHUB_WORKSPACE/bin`: rw33/h P10)
        p = os.path.join(d, name)
        if os.access(p, os.X_OK) and not os.path.isdir(p):
            return p
    return None


def _working_repository() -> Optional[str]:
    """The repository pdlint runs in (pre-commit and CI run it at the work tree's top): the nearest directory from
    the working directory up that holds ``.git``, else the working directory itself (realpaths).  A program in a
    PATH directory inside it is one a pull request can commit."""
    try:
        d = os.path.realpath(os.getcwd())
    except OSError:
        return None
    return git_root(d) or d


def git_root(d: str) -> Optional[str]:
    """The nearest directory from ``d`` (absolute) up that holds a ``.git`` (a work tree's top), or None."""
    for _ in range(256):
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def inside(path: str, root: str) -> bool:
    """Is ``path`` ``root`` or below it (both absolute, normalised)?"""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symlink")):
        if test(mode):
            return name
    return "special file"


class Boundary:
    """The roots of one run and the only way its stages read repository files.

    ``cwd``: the working directory; ``paths``: what the command line named (a
    directory or file outside the working directory and outside any git work
    tree is its own root)."""

    def __init__(self, cwd: str, paths=()):
        self.cwd = os.path.abspath(cwd)
        self._git: dict = {}  # directory -> its git root (or None)
        self._real: dict = {}  # root -> its real path
        self._roots: dict = {}  # directory -> root
        self._path_roots: dict = {}  # absolute path asked about -> root
        scan = set()
        for p in paths or ():
            ap = os.path.abspath(os.path.join(self.cwd, p))
            if self.git_root(ap) is None and not inside(ap, self.cwd):
                scan.add(ap if os.path.isdir(ap) and not os.path.islink(ap) else os.path.dirname(ap))
        self.scan_roots = sorted(scan, key=len, reverse=True)

    # -- roots ------------------------------------------------------------------
    def git_root(self, path: str) -> Optional[str]:
        """The git work tree ``path`` belongs to.  A work tree reached through a
        symlink out of an enclosing work tree is not a root of its own (the
        enclosing one is): a committed link to another checkout does not make
        that checkout readable."""
        d = path if os.path.isdir(path) and not os.path.islink(path) else os.path.dirname(path)
        return self._git_dir(os.path.abspath(d))

    def _git_dir(self, d: str) -> Optional[str]:
        if d in self._git:
            return self._git[d]
        chain = []
        root = None
        while True:
            if d in self._git:
                root = self._git[d]
                break
            chain.append(d)
            if os.path.lexists(os.path.join(d, ".git")):
                root = d
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        if root is not None and os.path.dirname(root) != root:
            outer = self._git_dir(os.path.dirname(root))
            if outer is not None and not inside(self.real(root), self.real(outer)):
                root = outer  # reached through a symlink that leaves the enclosing work tree
        for c in chain:
            self._git[c] = root
        return root

    def root_for(self, path: str, listed: bool = False) -> str:
        """The root a file is read inside: its git work tree, else the scan
        root holding it (the working directory, or a directory named outside it).
        ``listed``: ``path`` is a file a listing gave (git's, a walk's), not a
        directory: no ``isdir`` asked of it."""
        ap = os.path.abspath(path)
        hit = self._path_roots.get(ap)  # a file is asked about several times a run: one stat for all
        if hit is not None:
            return hit
        d = os.path.dirname(ap) if listed or not (os.path.isdir(ap) and not os.path.islink(ap)) else ap
        root = self._roots.get(d)
        if root is None:
            root = self._git_dir(d)
            if root is None:
                root = next((r for r in self.scan_roots if inside(d, r)), None)
            if root is None:
                root = self.cwd if inside(d, self.cwd) else d
            self._roots[d] = root
        self._path_roots[ap] = root
        return root

    def _realpath(self, ap: str) -> tuple:
        """(``os.path.realpath``, the lstat of that path when it was taken on the way, else None), with
        the real path of each directory computed once per run (a stale entry only makes the
        component-wise open below fail: never a wrong read)."""
        i = ap.rfind(os.sep) + 1  # (os.path.split and join of an absolute, normalised path)
        d, base = ap[:i].rstrip(os.sep) or ap[:i], ap[i:]
        rd = self._real.get(d)
        if rd is None:
            rd = self._real[d] = os.path.realpath(d)
        real = (rd + base) if rd.endswith(os.sep) else (rd + os.sep + base)
        try:
            st = os.lstat(real)
        except OSError:
            return real, None
        if stat.S_ISLNK(st.st_mode):
            return os.path.realpath(real), None
        return real, st

    def real(self, root: str) -> str:
        r = self._real.get(root)
        if r is None:
            r = self._real[root] = os.path.realpath(root)
        return r

    # -- checks -------------------------------------------------------------------
    def contains(self, path: str, root: Optional[str] = None) -> bool:
        """Does ``path``, with its symlinks resolved, stay inside ``root`` (default: its own root)?"""
        ap = os.path.abspath(path)
        root = self.root_for(ap) if root is None else os.path.abspath(root)
        try:
            real = os.path.realpath(ap)
        except (OSError, ValueError):
            return False
        return inside(real, self.real(root))

    def refusal(self, path: str, root: Optional[str] = None) -> Optional[Refused]:
        """Why :meth:`read` would refuse ``path`` (without opening it), or None."""
        try:
            self._resolve(path, root)
        except Refused as r:
            return r
        return None

    def is_file(self, path: str, root: Optional[str] = None) -> bool:
        """A regular file inside the root (stat only: never opens the file)."""
        return self.refusal(path, root) is None

    # -- reading ------------------------------------------------------------------
    def read(self, path: str, root: Optional[str] = None, limit: int = MAX_FILE_BYTES) -> bytes:
        """The bytes of a regular file inside the root (see the module docstring); raises :class:`Refused`."""
        fd = self._open(path, root)
        try:
            size = os.fstat(fd).st_size
            if size > limit:
                raise Refused(f"file is larger than {limit} bytes", BIG)
            data = _read_upto(fd, limit + 1)
        except OSError as e:
            raise _os_refusal(e, os.path.abspath(path)) from None
        finally:
            os.close(fd)
        if len(data) > limit:
            raise Refused(f"file is larger than {limit} bytes", BIG)
        return data

    def head(self, path: str, n: int = 128, root: Optional[str] = None) -> bytes:
        """The first ``n`` bytes of a file :meth:`read` would read; ``b""`` for any other."""
        try:
            fd = self._open(path, root)
        except Refused:
            return b""
        try:
            return _read_upto(fd, n)
        except OSError:
            return b""
        finally:
            os.close(fd)

    def identity(self, path: str, root: Optional[str] = None) -> Optional[tuple]:
        """(size, mtime_ns, ctime_ns, inode, device) of the regular file :meth:`read` would read, after
        the same checks (lstat only: nothing is opened); None for a path it would refuse (why is not asked:
        the cache asks this of every file a stored result read, absent ones too, on every run)."""
        try:
            st = self._checked(path, root, _QUIET)[3]
        except Refused:
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)

    def _resolve(self, path: str, root: Optional[str]) -> tuple:
        """(abspath, real path, real root), or :class:`Refused` when the path leaves the root or
        is not a regular file (checked with lstat: nothing is opened)."""
        return self._checked(path, root)[:3]

    def _checked(self, path: str, root: Optional[str], quiet: bool = False) -> tuple:
        """:meth:`_resolve` and the file's lstat; ``quiet``: a missing file's :class:`Refused` says no more
        (the diagnosis of a dangling symlink is not made)."""
        ap = os.path.abspath(path)
        if root is None:
            root = self._path_roots.get(ap) or self.root_for(ap)
        else:
            root = os.path.abspath(root)
        rroot = self._real.get(root) or self.real(root)
        if "\0" in ap:
            raise Refused("the file name contains a NUL byte", ERROR)
        if not (inside(ap, root) or inside(ap, rroot)):
            raise Refused("outside the repository", OUTSIDE)
        try:
            real, st = self._realpath(ap)
        except (OSError, ValueError) as e:
            raise Refused(str(e), ERROR) from None
        if not inside(real, rroot):
            raise Refused("symlink pointing outside the repository", OUTSIDE)
        if st is None:  # a symlink resolved, or no status yet: the resolved path's own
            try:
                st = os.lstat(real)
            except OSError as e:
                if quiet and e.errno in (errno.ENOENT, errno.ENOTDIR):
                    raise Refused("no such file", MISSING) from None
                raise _os_refusal(e, ap) from None
        if stat.S_ISLNK(st.st_mode):
            raise _os_refusal(OSError(errno.ELOOP, os.strerror(errno.ELOOP)), ap)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"not a regular file ({file_kind(st.st_mode)})", SPECIAL)
        return ap, real, rroot, st

    def _open(self, path: str, root: Optional[str]) -> int:
        ap, real, rroot = self._resolve(path, root)
        try:
            fd = _open_beneath(real, rroot) if _AT else os.open(real, _OPEN_FILE)
        except OSError as e:
            raise _os_refusal(e, ap) from None
        try:
            mode = os.fstat(fd).st_mode
        except OSError as e:
            os.close(fd)
            raise _os_refusal(e, ap) from None
        if not stat.S_ISREG(mode):  # changed since the lstat above
            os.close(fd)
            raise Refused(f"not a regular file ({file_kind(mode)})", SPECIAL)
        return fd


def _open_beneath(real: str, rroot: str) -> int:
    """Open ``real`` (inside ``rroot``) one component at a time from the root's
    directory, never following a symlink: what was checked is what is read."""
    rel = real[len(rroot):] if inside(real, rroot) else os.path.relpath(real, rroot)
    parts = [p for p in rel.split(os.sep) if p not in ("", ".")]
    if not parts or ".." in parts:
        raise OSError(errno.EISDIR if not parts else errno.EACCES, "not a file inside the repository")
    dfd = os.open(rroot, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for part in parts[:-1]:
            nfd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC, dir_fd=dfd)
            os.close(dfd)
            dfd = nfd
        st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):  # never open a FIFO or device, even non-blocking
            if stat.S_ISLNK(st.st_mode):
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
            raise Refused(f"not a regular file ({file_kind(st.st_mode)})", SPECIAL)
        return os.open(parts[-1], _OPEN_FILE, dir_fd=dfd)
    finally:
        os.close(dfd)


def _read_upto(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        b = os.read(fd, min(1 << 20, n - got))
        if not b:
            break
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


_QUIET = True  # (Boundary._checked's ``quiet``)


def _os_refusal(e: OSError, ap: str) -> Refused:
    if e.errno == errno.ELOOP:
        try:
            os.stat(ap)
        except OSError as e2:
            if e2.errno == errno.ELOOP:
                return Refused("symlink loop", LOOP)
        return Refused("a symlink changed while pdlint read the file", LOOP)
    if e.errno in (errno.ENOENT, errno.ENOTDIR):
        if os.path.islink(ap) or _dangling_below(ap):
            return Refused("dangling symlink (its target does not exist)", MISSING)
        return Refused(e.strerror or "no such file", MISSING if e.errno == errno.ENOENT else ERROR)
    return Refused(e.strerror or str(e), ERROR)


def _dangling_below(ap: str) -> bool:
    d = os.path.dirname(ap)
    while d and os.path.dirname(d) != d:
        if os.path.islink(d) and not os.path.exists(d):
            return True
        d = os.path.dirname(d)
    return False


def decode(data: bytes) -> tuple:
    """File bytes as pdlint reads text: ``(text, None)`` (UTF-8, BOM dropped,
    line ends normalised to ``\\n``) or ``(None, (message, line, column))`` for a
    file that is not text (NUL bytes, invalid UTF-8)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, ("file is UTF-16 (byte-order mark); pdlint reads UTF-8: re-save it as UTF-8", 1, 1)
    if b"\0" in data:
        return None, ("file contains NUL bytes (binary?)", 1, 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column, message = not_utf8(data, e)
        return None, (message, line, column)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n"), None


def not_utf8(data: bytes, e: UnicodeDecodeError) -> tuple:
    """(line, column, message) of the first byte that is not UTF-8: the column counts the characters
    before it on its line (as an editor shows it), the message names the bytes."""
    start = data.rfind(b"\n", 0, e.start) + 1
    line = data.count(b"\n", 0, e.start) + 1
    column = len(data[start:e.start].decode("utf-8", "replace")) + 1
    bad = " ".join(f"0x{b:02x}" for b in data[e.start:max(e.end, e.start + 1)][:4])
    return line, column, f"not valid UTF-8 at line {line}, column {column} (byte {bad}: {e.reason})"

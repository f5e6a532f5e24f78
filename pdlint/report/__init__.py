"""Report stage: one emitter module per output format."""


def role_label(role):
    """A role as text output shows it: SGLang's ``null`` (its ``--disaggregation-mode`` default, the JSON
    output's value for a server that is not disaggregated) reads ``non-PD``."""
    return "non-PD" if role == "null" else role


def repository_paths(findings: list, cwd: str) -> tuple:
    """``(findings, root)``: the findings with every relative path made relative to the git work tree that
    holds ``cwd`` (GitHub resolves an annotation's ``file=`` and a SARIF result's relative URI against the
    repository root: a run in a sub-directory, `working-directory: deploy`, pointed them at files that do not
    exist; field test rw19/c), and that root; unchanged, with ``cwd``, outside a work tree or at its root."""
    import os
    from pdlint.discover import repo_root
    from pdlint.records import replace
    root = repo_root(os.path.abspath(cwd), {})
    if root is None or os.path.abspath(root) == os.path.abspath(cwd):
        return findings, cwd

    def rebased(path: str) -> str:
        if path.startswith(("/", "<")):
            return path
        return os.path.relpath(os.path.join(cwd, path), root).replace(os.sep, "/")
    out = [replace(f, path=rebased(f.path), related=tuple(replace(r, path=rebased(r.path)) for r in f.related))
           for f in findings]
    return out, root

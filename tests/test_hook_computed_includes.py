"""The pre-commit hook names only the staged files: a partial or sourced file is checked in the launches that read it,
found by its name in their text.  One read through a name the includer computes (`{% include part ~ ".j2" %}`,
`source "scripts/models/${MODEL}.env"`) was not found: hostile-input test rw25/h item 8, "No launch text found" (exit
0 with --strict) where the full scan reported SGL101 in that very file."""

import pytest

FILES = {
    "tpl/flags.j2": "--enable-linear-replayssm-spec\n",
    "tpl/prefill.sh.j2": '{% set part = "fl" ~ "ags" %}python -m sglang.launch_server --model-path m '
                         '--disaggregation-mode prefill {% include part ~ ".j2" %}\n',
    "scripts/models/llama.env": 'COMMON_ARGS="--model-path m --enable-linear-replayssm-spec"\n',
    "scripts/prefill.sh": 'MODEL=llama\nsource "scripts/models/${MODEL}.env"\n'
                          "python -m sglang.launch_server --disaggregation-mode prefill $COMMON_ARGS\n",
}


@pytest.mark.parametrize("named", ["tpl/flags.j2", "scripts/models/llama.env"])
def test_a_staged_file_read_through_a_computed_name_is_checked_in_its_launch(scratch_git, named):
    for path, text in FILES.items():
        scratch_git.write(path, text)
    code, doc = scratch_git.lint("--strict", "--force-exclude", "--", named)
    assert [(f["code"], f["path"]) for f in doc["findings"]] == [("SGL101", named)] and code == 1


def test_a_literal_source_path_is_not_taken_for_a_computed_one(scratch_git):
    """`source "$SCRIPT_DIR/common.sh"` names common.sh (its last part is written): only its own includers come."""
    scratch_git.write("a/common.sh", 'ARGS="--model-path m"\n')
    scratch_git.write("a/run.sh", 'source "$SCRIPT_DIR/common.sh"\npython -m sglang.launch_server $ARGS\n')
    scratch_git.write("b/other.sh", 'source "$HOME/env/${NAME}.sh"\npython -m sglang.launch_server --model-path m\n')
    scratch_git.write("b/x.sh", "echo x\n")
    code, doc = scratch_git.lint("--", "b/x.sh")
    assert sorted(doc["coverage"]["files"]) == ["b/other.sh", "b/x.sh"]  # (x.sh may be what other.sh sources)


@pytest.mark.parametrize("include, source, comment", [
    ('{%+ include part ~ ".j2" %}', '{ source "scripts/models/${MODEL}.env"; }', ""),
    ('{% include part ~ ".j2" %}', 'if [ -n "$X" ]; then :; else source "scripts/models/${MODEL}.env"; fi', ""),
    ('{% include part ~ ".j2" %}', 'source "scripts/models/${MODEL}.env"', "launcher"),
])
@pytest.mark.parametrize("named", ["tpl/flags.j2", "scripts/models/llama.env"])
def test_other_spellings_of_a_computed_include_are_found(scratch_git, named, include, source, comment):
    """rw26/h item 3: `{%+ include`, a `source` after `{` or `else`, and a partial whose comment names a launcher
    (taken for a file that starts a server of its own) left the staged partial unexpanded."""
    files = dict(FILES)
    files["tpl/prefill.sh.j2"] = files["tpl/prefill.sh.j2"].replace('{% include part ~ ".j2" %}', include)
    files["scripts/prefill.sh"] = files["scripts/prefill.sh"].replace('source "scripts/models/${MODEL}.env"', source)
    if comment:
        files["tpl/flags.j2"] = "{# used by: python -m sglang.launch_server #}" + files["tpl/flags.j2"]
        files["scripts/models/llama.env"] = ("# sourced before: python -m sglang.launch_server $COMMON_ARGS\n"
                                             + files["scripts/models/llama.env"])
    for path, text in files.items():
        scratch_git.write(path, text)
    code, doc = scratch_git.lint("--strict", "--force-exclude", "--", named)
    # (the `else` branch: X unknown, the launch without the file is a PD023 of its own)
    assert ("SGL101", named) in [(f["code"], f["path"]) for f in doc["findings"]] and code == 1


def test_a_script_that_starts_with_a_comment_still_launches_itself(scratch_git):
    """A `#!` line is a comment: what follows it is the script's own launch (a comment pattern matched to the end of
    the text once read it all as a comment, and the hook brought every file with a computed `source`)."""
    scratch_git.write("a/run.sh", "#!/bin/bash\n# starts the prefill\npython -m sglang.launch_server --model-path m\n")
    scratch_git.write("b/other.sh", 'source "$HOME/env/${NAME}.sh"\npython -m sglang.launch_server --model-path n\n')
    _, doc = scratch_git.lint("--", "a/run.sh")
    assert sorted(doc["coverage"]["files"]) == ["a/run.sh"]

"""``source "models/${MODEL}.env"`` with ``MODEL=${MODEL:-llama}``: the other files the name may take are values of
``MODEL`` the script is run with (``Builtins.note_source_values``, ``Extractor`` ``source_read``).

Hostile-input test rw26/h item 11: only the default's file was ever read; a sibling ``big.env`` with a refused flag
was checked nowhere, in a full scan or in the hook that names it (its includers ran with the default too)."""

SCRIPT = 'MODEL=${MODEL:-llama}\nsource "scripts/models/${MODEL}.env"\n' \
         'python -m sglang.launch_server $COMMON_ARGS --disaggregation-mode prefill\n'


def _files(scratch_git, script=SCRIPT):
    scratch_git.write("scripts/models/llama.env", 'COMMON_ARGS="--model-path m"\n')
    scratch_git.write("scripts/models/big.env", 'COMMON_ARGS="--model-path m --enable-linear-replayssm-spec"\n')
    scratch_git.write("scripts/models/README.md", "the models\n")
    scratch_git.write("scripts/prefill.sh", script)


def test_each_file_the_name_may_take_is_read(scratch_git):
    _files(scratch_git)
    code, doc = scratch_git.lint("--strict", ".")
    assert [(f["code"], f["path"]) for f in doc["findings"]] == [("SGL101", "scripts/models/big.env")]
    assert sorted("run with MODEL=big" in l["context"] for l in doc["launches"]) == [False, True]
    code, doc = scratch_git.lint("--strict", "--", "scripts/models/big.env")  # (the hook naming the sibling)
    assert [(f["code"], f["path"]) for f in doc["findings"]] == [("SGL101", "scripts/models/big.env")] and code == 1


def test_a_name_the_script_fixes_reads_that_file_only(scratch_git):
    # MODEL written in the script, not the environment's: only llama.env is ever read by it
    _files(scratch_git, SCRIPT.replace("MODEL=${MODEL:-llama}", "MODEL=llama"))
    code, doc = scratch_git.lint(".")
    assert doc["findings"] == [] and len(doc["launches"]) == 1 and code == 0

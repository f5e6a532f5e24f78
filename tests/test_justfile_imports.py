"""Justfile ``import`` lines (``justfile.imports``, ``Extractor.just_imports``).

Stop 42 left it open: a recipe reading a variable an imported justfile sets (``import 'common/flags.just'``,
``{{shared}}``) had it as a value pdlint cannot see (PD023, with a help about "a controller's Go template"), so a
refused flag in the shared file was never checked; an import outside the repository said nothing of itself.  Now
the imports inside the repository are read (nested, each once), one outside is a PD014 when a recipe reads a name no
file sets, and ``--var`` gives a just variable its deploy-time value (``just --set``)."""

RECIPES = """\
{imports}
prefill:
    python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill {{{{shared}}}}
decode:
    python3 -m sglang.launch_server --model-path m --disaggregation-mode decode {{{{shared}}}}
"""
FLAGS = 'shared := "--enable-linear-replayssm-spec"\n'


def _found(report):
    return sorted((f["code"], f["path"], f["line"]) for f in report["findings"])


def _repo(scratch, imports):
    scratch.write("justfile", RECIPES.format(imports=imports))


def test_a_variable_of_an_imported_justfile_is_read(scratch):
    _repo(scratch, "import 'common/flags.just'")
    scratch.write("common/flags.just", FLAGS)
    code, report = scratch.lint("--", "justfile")
    assert _found(report) == [("SGL101", "common/flags.just", 1)]
    assert code == 1


def test_imports_nest_and_a_cycle_ends(scratch):
    _repo(scratch, 'import "common/a.just"')
    scratch.write("common/a.just", "import 'b.just'\n")
    scratch.write("common/b.just", "import 'a.just'\n" + FLAGS)
    _, report = scratch.lint("--", "justfile")
    assert _found(report) == [("SGL101", "common/b.just", 2)]


def test_the_justfiles_own_value_wins(scratch):
    _repo(scratch, "import 'common/flags.just'\nshared := \"--page-size 64\"")
    scratch.write("common/flags.just", FLAGS)
    code, report = scratch.lint("--", "justfile")
    assert _found(report) == [] and code == 0


def test_an_import_outside_the_repository_is_said(scratch):
    _repo(scratch, "import '../outside.just'")
    _, report = scratch.lint("--", "justfile")
    assert _found(report) == [("PD014", "justfile", 1), ("PD023", "justfile", 3), ("PD023", "justfile", 5)]
    pd014 = report["findings"][0]
    assert "not in the repository" in pd014["message"] and "'shared'" in pd014["message"]
    pd023 = [f for f in report["findings"] if f["code"] == "PD023"][0]
    assert "just variable" in pd023["fix"] and "Go template" not in pd023["fix"]


def test_a_missing_optional_import_is_quiet_and_var_gives_the_value(scratch):
    _repo(scratch, "import? 'local.just'\nimport 'gone.just'")
    code, report = scratch.lint("--var", "shared=--enable-linear-replayssm-spec", "--", "justfile")
    # the value given: nothing unseen, so the refused import is no PD014; the flag is checked
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1


# the same for a Makefile's `include` (its variables inside the repository have been read since the Makefile format)
MAKEFILE = """\
{include}
prefill:
\tpython3 -m sglang.launch_server --model-path m --disaggregation-mode prefill $(SHARED)
decode:
\tpython3 -m sglang.launch_server --model-path m --disaggregation-mode decode $(SHARED)
"""


def test_a_makefile_include_outside_the_repository_is_said(scratch):
    scratch.write("Makefile", MAKEFILE.format(include="include ../common/flags.mk"))
    _, report = scratch.lint("--", "Makefile")
    assert _found(report) == [("PD014", "Makefile", 1), ("PD023", "Makefile", 3), ("PD023", "Makefile", 5)]
    assert "$(SHARED)" in report["findings"][0]["message"]


def test_a_makefile_include_is_quiet_when_nothing_it_may_set_is_read(scratch):
    # `-include` may be missing; a value given; an include whose variables no recipe reads; no launch at all
    scratch.write("Makefile", MAKEFILE.format(include="-include ../common/flags.mk"))
    scratch.write("b/Makefile", MAKEFILE.format(include="include ../../common/flags.mk"))
    scratch.write("c/Makefile", MAKEFILE.format(include="include ../../common/flags.mk").replace("$(SHARED)", ""))
    scratch.write("d/Makefile", "include ../../common/build.mk\nall:\n\t$(CC) -o x x.c $(OPT)\n")
    _, report = scratch.lint("--var", "SHARED=", "--", "Makefile", "b/Makefile", "c/Makefile", "d/Makefile")
    assert [f for f in report["findings"] if f["code"] == "PD014"] == []
    _, report = scratch.lint("--", "c/Makefile", "d/Makefile")
    assert _found(report) == []


def test_a_simply_expanded_self_reference_is_its_value_then(scratch):
    # rw26/h notes: `E := sgl` / `E := $(E)ang` is `sglang` in GNU make; read at the recipe it was a value pdlint
    # cannot see ("make-var-Eang"), and the launch was no launch at all
    scratch.write("Makefile", "E := sgl\nE := $(E)ang\nprefill:\n\tpython3 -m $(E).launch_server --model-path m "
                              "--disaggregation-mode prefill --enable-linear-replayssm-spec\n")
    _, report = scratch.lint("--", "Makefile")
    assert [f["code"] for f in report["findings"]] == ["SGL101"]
    # a recursively expanded one still refers to itself (make stops there): not a launch pdlint builds
    scratch.write("Makefile", "E = sgl\nE = $(E)ang\nprefill:\n\tpython3 -m $(E).launch_server --model-path m\n")
    _, report = scratch.lint("--", "Makefile")
    assert report["launches"] == []

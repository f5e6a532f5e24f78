"""Flags SGLang still registers but refuses, and the old MoE switches (field test: sgl-project/ome's
config/runtimes/srt/kimi-k2-pd-rt.yaml, unpinned, `--enable-deepep-moe --enable-eplb --tp-size $(N)`).

* 0.5.3-0.5.4 register `--enable-deepep-moe` / `--enable-ep-moe` as a `DeprecatedAction`, which raises
  `ValueError` with the flag's help when given: the server stops. pdlint had said SGL008 "deprecated" (a
  warning), and counted those releases as accepting the flag when it judged an unpinned launch.
* Until 0.5.2 `--enable-deepep-moe` sets `--moe-a2a-backend deepep` (EP = TP) and `--enable-ep-moe` sets
  EP = TP in `__post_init__`; SGL246 ("--enable-eplb needs expert parallelism, EP size 1") ignored them."""

import pytest

SERVER = "python3 -m sglang.launch_server --model-path m"


def _lint(scratch_git, flags, *opts):
    scratch_git.write("run.sh", f"{SERVER} {flags}\n")
    code, report = scratch_git.lint(*opts, "run.sh")
    return code, [(f["code"], f["severity"], f["message"]) for f in report["findings"]]


@pytest.mark.parametrize("flag", ["--enable-deepep-moe", "--enable-ep-moe"])
def test_a_deprecated_action_stops_the_server(scratch_git, flag):
    code, found = _lint(scratch_git, f"{flag} --tp-size 8", "--sglang-version", "0.5.4")
    ((rule, severity, message),) = found
    assert (rule, severity, code) == ("SGL009", "error", 1)
    assert message.startswith(f"{flag} is withdrawn in SGLang 0.5.4") and "ValueError" in message


def test_the_same_flag_where_it_still_works_is_quiet(scratch_git):
    code, found = _lint(scratch_git, "--enable-deepep-moe --tp-size 8", "--sglang-version", "0.5.2")
    assert found == [] and code == 0


def test_an_unpinned_launch_is_judged_by_the_releases_that_take_the_flag(scratch_git):
    code, found = _lint(scratch_git, "--enable-deepep-moe --tp-size 8")
    ((rule, _, message),) = found
    assert rule == "SGL012" and "valid together only for SGLang 0.4.4.post2–0.5.2" in message
    assert message.endswith("judged against 0.5.2 [SGLang 0.5.2]")


@pytest.mark.parametrize("flags, fires", [
    ("--enable-eplb --tp-size 8", True),
    ("--enable-eplb --enable-deepep-moe --tp-size 8", False),  # deepep: EP = TP
    ("--enable-eplb --enable-ep-moe --tp-size 8", False),  # EP = TP
    ("--enable-eplb --enable-ep-moe --tp-size 1", True),
    ("--enable-eplb --enable-deepep-moe --tp-size $N", False),  # EP = TP, unknown
])
def test_the_old_moe_switches_give_expert_parallelism(scratch_git, flags, fires):
    _, found = _lint(scratch_git, flags, "--sglang-version", "0.5.2")
    assert ("SGL246" in [r for r, _, _ in found]) is fires, found


# -- a choice only older releases have (sgl-project/ome's Nemotron runtimes: `--reasoning-parser nano_v3` on a
# nightly image that pins no release; 0.5.7-0.5.9 have it, `nemotron_3` since)

def test_an_unpinned_launch_with_an_old_choice_is_judged_by_the_releases_that_have_it(scratch_git):
    code, found = _lint(scratch_git, "--reasoning-parser nano_v3")
    ((rule, severity, message),) = found
    assert (rule, severity, code) == ("SGL012", "warning", 0)
    assert message.startswith("--reasoning-parser nano_v3: this launch's flags are valid together only for SGLang "
                              "0.5.7–0.5.9:")
    assert "--reasoning-parser nano_v3 is none of its choices in SGLang" in message
    assert message.endswith("judged against 0.5.9 [SGLang 0.5.9]")


def test_the_old_choice_against_a_pinned_release_is_an_error(scratch_git):
    code, found = _lint(scratch_git, "--reasoning-parser nano_v3", "--sglang-version", "0.5.23")
    assert [r for r, _, _ in found] == ["SGL004"] and code == 1


@pytest.mark.parametrize("flags", [
    "--reasoning-parser nano_v9",
    # 0.4.5.post1-post2 list no choices for the backend and take any word: that says nothing of a typo
    "--disaggregation-transfer-backend moonkake",
])
def test_a_choice_no_release_lists_is_an_error(scratch_git, flags):
    code, found = _lint(scratch_git, flags)
    assert [r for r, _, _ in found] == ["SGL004"] and code == 1


def test_an_old_flag_and_an_old_choice_narrow_the_releases_together(scratch_git):
    code, found = _lint(scratch_git, "--disaggregation-mode prefill --disaggregation-decode-tp 2 "
                                     "--reasoning-parser nano_v3")
    ((rule, _, message),) = found
    assert rule == "SGL012" and "--disaggregation-decode-tp" in message
    assert message.endswith("judged against 0.5.9 [SGLang 0.5.9]")

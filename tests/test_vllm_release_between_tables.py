"""A vLLM release pinned between two flag tables is judged by both tables around it (differential test rw26/b,
vLLM's own parsers against pdlint's rules over releases, items 10, 11, 12).

Before, a pin to 0.15.0 (no table then) was judged against 0.11.0 alone: `-cc.cudagraph_mode X` was "VLLM018
unrecognized arguments" though 0.15.0 has `-cc` (0.13.0 on), `--compilation-config '{"cudagraph_mod": ...}'` a
warning "pydantic drops it" though 0.13.0 and later refuse it, and `--all2all-backend mori_foo` silent though no
release allows it.  0.13.0 (the first release whose CompilationConfig forbids extra keys: bisected on the 0.12.0,
0.13.0 and 0.14.0 wheels) and 0.15.0 now have tables; 0.12.0 lies between 0.11.0 and 0.13.0, 0.14.0 between 0.13.0
and 0.15.0, 0.17.0 between 0.15.0 and 0.20.0.

Verdicts of each release's own parser (the old-release oracle: vllm.entrypoints.openai.cli_args.make_arg_parser of
the release's wheel, python files on PYTHONPATH, `parse_args`):

vLLM 0.12.0:
* `m -cc.cudagraph_mode FULL`                                   ACCEPT
* `m --mamba-cache-mode all`                                    REJECT unrecognized arguments: --mamba-cache-mode all
* `m --compilation-config '{"cudagraph_mod":"FULL"}'`           ACCEPT (0.12.0's CompilationConfig drops it)
* `m --compilation-config.cudagraph_mod FULL`                   ACCEPT
* `m --eplb-config '{"window_sze":3}'`                          ACCEPT
* `m --all2all-backend mori_foo`                                REJECT argument --all2all-backend: invalid choice:
  'mori_foo' (choose from 'allgather_reducescatter', 'deepep_high_throughput', 'deepep_low_latency',
  'flashinfer_all2allv', 'naive', 'pplx', 'None')
* `m --all2all-backend mori`                                    REJECT invalid choice: 'mori'
* `m --kv-offloading-backend lmcachex`                          REJECT invalid choice: 'lmcachex' (choose from
  'lmcache', 'native', 'None')
* `m --dtype fp16`                                              REJECT invalid choice: 'fp16'
vLLM 0.14.0:
* `m --compilation-config '{"cudagraph_mod":"FULL"}'`           REJECT unexpected_keyword_argument
* `m --compilation-config '{"use_cudagraph":true}'`             REJECT unexpected_keyword_argument
* `m --compilation-config.cudagraph_mod FULL`                   REJECT unexpected_keyword_argument
* `m --compilation-config '{"pass_config":{"bogus":true}}'`     REJECT unexpected_keyword_argument
* `m --eplb-config '{"window_sze":3}'`                          ACCEPT (EPLBConfig drops it)
* `m --all2all-backend mori_foo`                                REJECT invalid choice: 'mori_foo'
* `m --kv-offloading-backend lmcachex`                          REJECT invalid choice: 'lmcachex'
* `m --max-lora-rank 7`                                         REJECT argument --max-lora-rank: invalid choice: 7
  (choose from 1, 8, 16, 32, 64, 128, 256, 320, 512)
vLLM 0.15.0: the same as 0.14.0 for these, and `m -cc.cudagraph_mode FULL` ACCEPT.
"""

import pytest

SCRIPT = "vllm serve Qwen/Qwen3-8B {args}\n"


def _found(scratch, release: str, args: str, code: str = None) -> list:
    scratch.write("serve.sh", SCRIPT.format(args=args))
    _, report = scratch.lint("--vllm-version", release, "serve.sh")
    return [(f["code"], f["severity"], f["message"]) for f in report["findings"] if code in (None, f["code"])]


# --- VLLM018: a flag or dotted form the newer table has (item 10) -------------------------------------------------

@pytest.mark.parametrize("release", ["0.12.0", "0.14.0", "0.15.0", "0.17.0"])
def test_a_dotted_short_option_the_newer_table_has_is_no_error(scratch, release):
    # 0.12.0: 0.11.0 lacks -cc, 0.13.0 has it; before: "unrecognized arguments: -cc.cudagraph_mode (not a vLLM
    # 0.11.0 flag)"
    assert _found(scratch, release, "-cc.cudagraph_mode FULL --compilation-config.mode 3") == []


def test_an_option_neither_table_around_the_release_has_is_an_error(scratch):
    # --mamba-cache-mode: 0.15.0 and later; 0.12.0 (between 0.11.0 and 0.13.0) refuses it - silent before
    [(code, sev, msg)] = _found(scratch, "0.12.0", "--mamba-cache-mode all")
    assert (code, sev) == ("VLLM018", "error")
    assert msg == ("--mamba-cache-mode is not a flag of vLLM 0.12.0: neither vLLM 0.11.0 nor 0.13.0, the releases "
                   "around it pdlint has tables for, defines it (it exists in 0.15.0-0.33.0); vLLM stops with "
                   "\"unrecognized arguments: --mamba-cache-mode\"")


def test_an_option_the_newer_table_has_stays_quiet(scratch):
    assert _found(scratch, "0.17.0", "--mamba-cache-mode all") == []


# --- VLLM044 / VLLM045: the release that starts refusing unknown keys (item 11) ------------------------------------

def test_the_first_release_that_refuses_unknown_compilation_keys_is_0_13(scratch):
    found = _found(scratch, "0.13.0", "--compilation-config '{\"cudagraph_mod\": \"FULL\"}'")
    assert found == [("VLLM044", "error",
                      "argument --compilation-config: 1 validation error for CompilationConfig: cudagraph_mod: "
                      "Unexpected keyword argument [type=unexpected_keyword_argument] (vLLM 0.13.0 refuses to start; "
                      "did you mean cudagraph_mode?)")]


@pytest.mark.parametrize("args,key", [
    ("--compilation-config '{\"cudagraph_mod\": \"FULL\"}'", "cudagraph_mod"),
    ("--compilation-config '{\"use_cudagraph\": true}'", "use_cudagraph"),
    ("--compilation-config.cudagraph_mod FULL", "cudagraph_mod"),
    ("--compilation-config '{\"pass_config\": {\"bogus\": true}}'", "pass_config.bogus"),
])
def test_between_two_tables_that_refuse_unknown_keys_it_is_an_error(scratch, args, key):
    # 0.14.0 (between 0.13.0 and 0.15.0): before, VLLM045 "pydantic drops it" judged against 0.11.0
    [(code, sev, msg)] = _found(scratch, "0.14.0", args)
    assert (code, sev) == ("VLLM044", "error")
    assert f"{key}: Unexpected keyword argument [type=unexpected_keyword_argument] (vLLM 0.14.0 refuses to start: " \
        in msg and "in vLLM 0.13.0 and 0.15.0, the releases around it pdlint has tables for, and neither has the " \
        "key" in msg, msg


def test_between_a_table_that_drops_and_one_that_refuses_pdlint_cannot_tell(scratch):
    # 0.12.0 (0.11.0 drops, 0.13.0 refuses; 0.12.0 itself drops): a warning that says so, not "drops it" alone
    [(code, sev, msg)] = _found(scratch, "0.12.0", "--compilation-config '{\"cudagraph_mod\": \"FULL\"}'")
    assert (code, sev) == ("VLLM045", "warning")
    assert msg == ("cudagraph_mod is not a key of CompilationConfig in vLLM 0.11.0 nor 0.13.0, the releases around "
                   "0.12.0 pdlint has tables for: 0.11.0 drops it without a word (the setting has no effect), 0.13.0 "
                   "refuses to start with it (\"Unexpected keyword argument\"); which of the two 0.12.0 does, pdlint "
                   "cannot tell; did you mean cudagraph_mode?")


def test_a_class_that_drops_unknown_keys_on_both_sides_stays_a_warning(scratch):
    # EPLBConfig drops unknown keys up to 0.15.0 at least: 0.14.0 accepts window_sze
    found = _found(scratch, "0.14.0", "--eplb-config '{\"window_sze\": 3}'")
    assert [(c, s) for c, s, _ in found] == [("VLLM045", "warning")]
    assert "pydantic drops it without a word" in found[0][2]


def test_a_key_the_newer_table_has_is_not_reported(scratch):
    # `level`: a key of 0.9.2-0.15.0 (0.15.0 accepts `{"level": 3}`), gone in 0.20.0; on 0.17.0 pdlint cannot tell
    assert _found(scratch, "0.14.0", "--compilation-config '{\"level\": 3, \"mode\": 3}'") == []


# --- VLLM019: a value neither table around the release allows (item 12) ---------------------------------------------

@pytest.mark.parametrize("args,value", [
    ("--all2all-backend mori_foo", "'mori_foo'"),
    ("--kv-offloading-backend lmcachex", "'lmcachex'"),
    ("--max-lora-rank 7", "7"),
    ("--dtype fp16", "'fp16'"),
])
def test_a_value_neither_table_allows_is_an_error(scratch, args, value):
    [(code, sev, msg)] = _found(scratch, "0.14.0", args)
    assert (code, sev) == ("VLLM019", "error")
    assert f"invalid choice: {value} [vLLM 0.14.0: neither vLLM 0.13.0 nor 0.15.0, the releases around it pdlint " \
           f"has tables for, allows it; 0.15.0 chooses from " in msg, msg


def test_an_option_only_the_newer_table_has_is_judged_by_its_choices(scratch):
    # 0.11.0 has no --all2all-backend; 0.12.0 refuses mori_foo and mori (a choice in 0.15.0-0.20.0)
    found = _found(scratch, "0.12.0", "--all2all-backend mori_foo --kv-offloading-backend lmcachex")
    assert [(c, s) for c, s, _ in found] == [("VLLM019", "error"), ("VLLM019", "error")]
    assert found[0][2].startswith("argument --all2all-backend: invalid choice: 'mori_foo' [vLLM 0.12.0: vLLM 0.11.0 "
                                  "has no --all2all-backend, 0.13.0 chooses from 'allgather_reducescatter', ")
    [(_, _, msg)] = _found(scratch, "0.12.0", "--all2all-backend mori")
    assert msg.endswith("; a choice in vLLM 0.15.0-0.20.0]"), msg


@pytest.mark.parametrize("release,args", [
    ("0.14.0", "--all2all-backend naive --max-lora-rank 8 --dtype float16"),
    ("0.12.0", "--all2all-backend naive --kv-offloading-backend native"),
    # a value the newer table allows: the release may have it (mori came in 0.15.0; on 0.17.0, 0.20.0 has it)
    ("0.14.0", "--all2all-backend mori"),
    ("0.17.0", "--all2all-backend flashinfer_nvlink_one_sided"),
])
def test_a_value_a_table_around_the_release_allows_is_quiet(scratch, release, args):
    assert _found(scratch, release, args) == []


def test_a_release_with_its_own_table_lists_int_choices_as_argparse_does(scratch):
    # vLLM 0.15.0: "argument --max-lora-rank: invalid choice: 7 (choose from 1, 8, 16, 32, 64, 128, 256, 320, 512)"
    [(_, _, msg)] = _found(scratch, "0.15.0", "--max-lora-rank 7")
    assert msg == ("argument --max-lora-rank: invalid choice: 7 (choose from 1, 8, 16, 32, 64, 128, 256, 320, 512) "
                   "[vLLM 0.15.0]")


def test_a_build_tag_between_tables_is_not_judged_by_both(scratch):
    # a custom build's tag naming 0.17.0 may add choices of its own (as test_vllm_unreleased_images)
    scratch.write("p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: v\n"
                            "    image: x/vllm:vllm-x86_64-cu13-0.17.0-7a33ba9\n"
                            "    command: [vllm, serve, m, --all2all-backend, mori_custom]\n")
    _, report = scratch.lint("p.yaml")
    assert report["findings"] == []
